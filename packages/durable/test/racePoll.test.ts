/**
 * Runners polling one PostgreSQL database at once (a throwaway server on loopback): two processes poll
 * a batch of approved runs at the same moment (`FOR UPDATE SKIP LOCKED` sweeps). Every run is taken by
 * one runner, every step executed once.
 */
import { describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { calls, run, setup } from "./helpers/childProcess.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"

usePostgres()
const it_ = pgSkip ? it.skip : it

describe("runners racing on PostgreSQL", () => {
  if (pgSkip) it.skip(`skipped: ${pgSkip}`, () => {})

  it_(
    "two runners polling approved runs at once split them; each step runs once",
    async () => {
      const storage = await freshDatabase()
      const { counter } = setup()
      const a = run([storage, counter, "start", "6"])
      const started = await a.waitFor((l) => Array.isArray(l))
      await a.kill()
      const store = await openRunStore(storage)
      for (const r of started) await store.approve(r.runId, "s3")

      const env = { STEP_DELAY_MS: "20" }
      const pollers = [run([storage, counter, "poll"], env), run([storage, counter, "poll"], env)]
      await Promise.all(pollers.map((r) => r.waitFor((l) => l.ready)))
      for (const r of pollers) r.send("go")
      const [first, second] = await Promise.all(pollers.map((r) => r.waitFor((l) => l.polled !== undefined)))
      await Promise.all(pollers.map((r) => r.exited))

      const polled = [...first.polled, ...second.polled]
      // Each run taken by one poller only, all of them taken, all completed.
      expect(polled.map((p: any) => p.runId).sort()).toEqual(started.map((r: any) => r.runId).sort())
      const stored = await store.list()
      // On failure the message carries every run as the store has it (status, error, steps).
      expect(
        polled.map((p: any) => p.status),
        JSON.stringify(stored.map((r) => ({ status: r.status, error: r.error, steps: r.steps }))),
      ).toEqual(polled.map(() => "completed"))
      const log = calls(counter)
      for (const step of ["s1", "s2", "s3", "s4", "s5"]) expect(log.filter((c) => c === step)).toHaveLength(6)
      for (const r of stored) {
        expect(r.status).toBe("completed")
        expect(r.steps.map((s) => s.executions)).toEqual([1, 1, 1, 1, 1])
      }
      await store.close()
    },
    120_000,
  )
})
