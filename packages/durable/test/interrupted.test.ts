/**
 * A crash in the middle of a step: the runner process is killed while step 4 (not idempotent) runs; the
 * next process does not call it again and fails the run as interrupted.
 */
import { describe, expect, it } from "vitest"
import { calls, run, setup } from "./helpers/childProcess.js"

describe("a step interrupted by a SIGKILL", () => {
  it("does not re-execute a non-idempotent step interrupted by the kill; the run fails as interrupted", async () => {
    const { file, counter } = setup()
    const first = run([file, counter, "start"], { HANG_STEP: "s4", NO_APPROVAL: "1" })
    await first.waitFor((l) => l.hanging === "s4")
    await first.kill()
    expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4"])

    const second = run([file, counter, "recover"])
    const [recovered] = await second.waitFor((l) => Array.isArray(l))
    expect(recovered.status).toBe("failed")
    expect(recovered.error.error.cause.name).toBe("Interrupted")
    expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4"])
  }, 60_000)
})
