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
      // One lease for every runner (the engine's membership is cluster-wide configuration).
      const lease = { LEASE_MS: "3000" }
      const a = run([storage, counter, "start"], lease)
      const { runId } = await a.waitFor((l) => l.status === "suspended")
      await a.kill()
      const store = await openRunStore(storage)
      await store.approve(runId, "s3")

      // The engine moves shards when its membership changes (the dead runner A leaving, the racers
      // joining), and a run then continues on the new owner from its next step. To race on one settled
      // assignment, the racers start after A's lease and say go once both have refreshed theirs.
      await new Promise((r) => setTimeout(r, 3500))
      const env = { STEP_DELAY_MS: "500", ...lease }
      const racers = [
        run([storage, counter, "resume", runId], env),
        run([storage, counter, "resume", runId], env),
      ]
      const ids = await Promise.all(racers.map((r) => r.waitFor((l) => l.ready)))
      await new Promise((r) => setTimeout(r, 2500))
      for (const r of racers) r.send("go")
      const results = await Promise.all(racers.map((r) => r.waitFor((l) => l.runId !== undefined)))
      await Promise.all(racers.map((r) => r.exited))

      // Steps 3-5 ran once each, all in one of the two processes: the winner.
      expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4", "s5"])
      const executors = new Set(callers(counter).slice(2))
      expect(executors.size).toBe(1)
      const winner = racers.findIndex((r) => executors.has(r.pid))
      expect(winner).toBeGreaterThanOrEqual(0)
      expect(results[winner].status).toBe("completed")
      // The loser found the run leased to the winner and left it alone (or, on a machine slow enough
      // that it asked only after the winner had finished, found it completed).
      const loser = results[1 - winner]
      if (loser.status === "running") expect(loser.owner).toBe(ids[winner].runnerId)
      else expect(loser.status).toBe("completed")
      const done = await store.show(runId)
      expect(done.status).toBe("completed")
      expect(done.steps.map((s) => s.executions)).toEqual([1, 1, 1, 1, 1])
      await store.close()
    },
    120_000,
  )
})
