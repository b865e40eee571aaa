/**
 * Distributed mode: runner processes sharing one PostgreSQL database (a throwaway server on loopback).
 * The crash scenario of crash.test.ts across processes: runner A runs a five-step skill whose step 3
 * needs approval and is SIGKILLed after step 2; runner B, a different process, approves through the API
 * and finishes the run. The tools count their calls (with the calling pid) in a file.
 */
import { describe, expect, it } from "vitest"
import { callers, calls, run, setup } from "./helpers/childProcess.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { startAndKill } from "./helpers/scenario.js"

usePostgres()
const it_ = pgSkip ? it.skip : it

describe("runner processes sharing PostgreSQL", () => {
  if (pgSkip) it.skip(`skipped: ${pgSkip}`, () => {})

  it_(
    "a run started by runner A (SIGKILLed) is approved through the API and finished by runner B",
    async () => {
      const storage = await freshDatabase()
      const { counter } = setup()
      const { a, runId } = await startAndKill(storage, counter)

      // Runner B, another process on the same database, approves with edited arguments (2 becomes 10).
      const b = run([storage, counter, "approve", runId, JSON.stringify({ value: 10 })])
      const done = await b.waitFor((l) => l.runId !== undefined)
      expect(await b.exited).toBe(0)
      expect(done.status).toBe("completed")
      expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4", "s5"])
      expect(callers(counter)).toEqual([a.pid, a.pid, b.pid, b.pid, b.pid])
      expect(done.steps.map((s: any) => s.executions)).toEqual([1, 1, 1, 1, 1])
      expect(done.steps[2].approvedArguments).toEqual({ value: 10 })
      expect(done.steps[4].result.structuredContent).toEqual({ value: 13 })
    },
    120_000,
  )
})
