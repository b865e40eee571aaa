/**
 * A crash in the middle of a step: the runner process is killed while step 4 (not idempotent) runs,
 * holding the run's lease; the next process leaves the run alone until that lease expires, then takes it
 * over, does not call step 4 again, and fails the run as interrupted.
 */
import { describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { calls, run, setup } from "./helpers/childProcess.js"

describe("a step interrupted by a SIGKILL", () => {
  it("waits for the dead runner's lease, then does not re-execute a non-idempotent step; the run fails as interrupted", async () => {
    const { file, counter } = setup()
    const first = run([file, counter, "start"], { HANG_STEP: "s4", NO_APPROVAL: "1", LEASE_MS: "6000" })
    await first.waitFor((l) => l.hanging === "s4")
    await first.kill()
    expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4"])
    const store = await openRunStore(file)
    const [held] = await store.list()
    await store.close()
    expect(held!.status).toBe("running")
    expect(held!.owner).toMatch(new RegExp(`/${first.pid}/`))
    const expires = Date.parse(held!.leaseExpiresAt!)

    const second = run([file, counter, "recover"], { RECOVER_WAIT: "1" })
    const { firstAttempt, at } = await second.waitFor((l) => l.firstAttempt !== undefined)
    // While the dead runner's lease holds, the run is left alone (on a slow machine the new process
    // may start after the lease expired; then it takes the run at once).
    if (at < expires) expect(firstAttempt).toEqual([])
    const [recovered] = await second.waitFor((l) => Array.isArray(l))
    expect(Date.now()).toBeGreaterThanOrEqual(expires)
    expect(recovered.status).toBe("failed")
    expect(recovered.error.error.cause.name).toBe("Interrupted")
    expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4"])
  }, 60_000)
})
