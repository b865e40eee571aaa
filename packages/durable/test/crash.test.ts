/**
 * The crash test: a real runner process runs a five-step skill whose step 3 needs approval; it is killed
 * with SIGKILL; a new process approves (with edited arguments) and the run finishes. The tools count
 * their calls in a file: steps 1-2 ran exactly once across both processes.
 */
import { describe, expect, it } from "vitest"
import { calls, run, setup } from "./helpers/childProcess.js"

describe("a durable run across a SIGKILL", () => {
  it("suspends at step 3, survives the kill, and finishes after approval with steps 1-2 executed once", async () => {
    const { file, counter } = setup()
    const first = run([file, counter, "start"])
    const suspended = await first.waitFor((l) => l.status !== undefined)
    expect(suspended.status).toBe("suspended")
    expect(suspended.steps.map((s: any) => [s.stepId, s.status])).toEqual([
      ["s1", "completed"],
      ["s2", "completed"],
      ["s3", "awaiting_approval"],
    ])
    await first.kill()
    expect(calls(counter)).toEqual(["s1", "s2"])

    // The approver edits step 3's arguments: 2 becomes 10, so later values prove the edit took effect.
    const second = run([file, counter, "approve", suspended.runId, JSON.stringify({ value: 10 })])
    const done = await second.waitFor((l) => l.runId !== undefined)
    expect(await second.exited).toBe(0)
    expect(done.status).toBe("completed")
    expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4", "s5"])
    expect(done.steps.map((s: any) => s.executions)).toEqual([1, 1, 1, 1, 1])
    expect(done.steps[2].approvedArguments).toEqual({ value: 10 })
    expect(done.steps[4].result.structuredContent).toEqual({ value: 13 })
  }, 60_000)
})
