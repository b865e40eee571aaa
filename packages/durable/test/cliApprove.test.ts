/**
 * Distributed mode, decided from the command line: runner A (a process on a throwaway PostgreSQL
 * server) suspends at step 3 and is SIGKILLed; the real `toolplane runs` command (the CLI's sources, run
 * as a subprocess) lists and approves against the PostgreSQL URL; runner B, another process, recovers
 * and finishes the run with steps 1-2 executed once.
 */
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { callers, calls, run, setup } from "./helpers/childProcess.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { CLI, startAndKill, toolplane } from "./helpers/scenario.js"

usePostgres()
const it_ = pgSkip ? it.skip : it

describe("toolplane runs against PostgreSQL", () => {
  if (pgSkip) it.skip(`skipped: ${pgSkip}`, () => {})

  it_(
    "`toolplane runs approve` against the PostgreSQL URL; runner B picks the decision up",
    async () => {
      const storage = await freshDatabase()
      const { counter } = setup()
      const { a, runId } = await startAndKill(storage, counter)
      if (!existsSync(CLI)) throw new Error(`the CLI's sources are missing: ${CLI}`)

      const listed = await toolplane(["runs", "list", "--runs", storage, "--json"])
      expect(listed.stderr).toBe("")
      expect(JSON.parse(listed.stdout).map((r: any) => [r.runId, r.status])).toEqual([[runId, "suspended"]])
      const invalid = await toolplane([
        "runs",
        "approve",
        runId,
        "s3",
        "--runs",
        storage,
        "--args",
        '{"value":"x"}',
      ])
      // Arguments the schema rejects are a usage error (exit 2), as documented.
      expect(invalid.code).toBe(2)
      expect(invalid.stderr).toMatch(/InvalidArguments.*\/value/)
      const approved = await toolplane([
        "runs",
        "approve",
        runId,
        "s3",
        "--runs",
        storage,
        "--args",
        '{"value":20}',
      ])
      expect(approved.stderr).toBe("")
      expect(approved.code).toBe(0)
      expect(approved.stdout).toBe(`approved ${runId} s3\n`)

      // Runner B recovers whatever is left: the approved run.
      const b = run([storage, counter, "recover"])
      const [done] = await b.waitFor((l) => Array.isArray(l))
      expect(await b.exited).toBe(0)
      expect(done.status).toBe("completed")
      expect(calls(counter)).toEqual(["s1", "s2", "s3", "s4", "s5"])
      expect(callers(counter)).toEqual([a.pid, a.pid, b.pid, b.pid, b.pid])
      expect(done.steps[4].result.structuredContent).toEqual({ value: 23 })

      const store = await openRunStore(storage)
      expect((await store.show(runId)).steps.map((s) => s.executions)).toEqual([1, 1, 1, 1, 1])
      await store.close()
    },
    120_000,
  )
})
