/**
 * Runners racing on one PostgreSQL database (a throwaway server on loopback): two processes resume the
 * same approved run at the same moment. Every step is executed by exactly one runner, once.
 */
import { describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { callers, calls, run, setup } from "./helpers/childProcess.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"

usePostgres()
const it_ = pgSkip ? it.skip : it

describe("runners racing on PostgreSQL", () => {
  if (pgSkip) it.skip(`skipped: ${pgSkip}`, () => {})

  it_(
    "two runners resuming the same run: exactly one executes each step",
    async () => {
      const storage = await freshDatabase()
      const { counter } = setup()
      const a = run([storage, counter, "start"])
      const { runId } = await a.waitFor((l) => l.status === "suspended")
      await a.kill()
      const store = await openRunStore(storage)
      await store.approve(runId, "s3")

      const env = { STEP_DELAY_MS: "200" }
      const racers = [
        run([storage, counter, "resume", runId], env),
        run([storage, counter, "resume", runId], env),
      ]
      const ids = await Promise.all(racers.map((r) => r.waitFor((l) => l.ready)))
      for (const r of racers) r.send("go")
      const results = await Promise.all(racers.map((r) => r.waitFor((l) => l.runId !== undefined)))
      await Promise.all(racers.map((r) => r.exited))

      expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4", "s5"])
      const winner = results.findIndex((r) => r.status === "completed")
      expect(winner).toBeGreaterThanOrEqual(0)
      const loser = results[1 - winner]
      // The loser found the run leased to the winner and left it alone.
      expect(loser.status).toBe("running")
      expect(loser.owner).toBe(ids[winner].runnerId)
      expect(callers(counter).slice(2)).toEqual([
        racers[winner]!.pid,
        racers[winner]!.pid,
        racers[winner]!.pid,
      ])
      const done = await store.show(runId)
      expect(done.status).toBe("completed")
      expect(done.steps.map((s) => s.executions)).toEqual([1, 1, 1, 1, 1])
      await store.close()
    },
    120_000,
  )
})
