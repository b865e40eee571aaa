/**
 * Distributed mode: runner processes sharing one PostgreSQL database (a throwaway server on loopback).
 * The crash scenario of crash.test.ts across processes: runner A runs a five-step skill whose step 3
 * needs approval and is SIGKILLed after step 2; a different process resumes it after an approval given
 * through the API, or through the real `toolplane runs approve` command (the CLI's source, run as a
 * subprocess) against the PostgreSQL URL. The tools count their calls (with the calling pid) in a file.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { callers, calls, run, setup } from "./helpers/childProcess.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"

usePostgres()
const it_ = pgSkip ? it.skip : it
const REPO = join(import.meta.dirname, "..", "..", "..")
const CLI = join(REPO, "packages", "cli", "src", "main.ts")

/** Runs `toolplane <args>` from the CLI's sources; resolves with its exit code and output. */
const toolplane = (args: readonly string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@toolplane/source", "--import", "tsx", "--no-warnings", CLI, ...args],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString()
    })
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString()
    })
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Runner A: starts the run, suspends at step 3, is SIGKILLed. */
const startAndKill = async (storage: string, counter: string) => {
  const a = run([storage, counter, "start"])
  const suspended = await a.waitFor((l) => l.status !== undefined)
  expect(suspended.status).toBe("suspended")
  expect(suspended.steps.map((s: any) => [s.stepId, s.status])).toEqual([
    ["s1", "completed"],
    ["s2", "completed"],
    ["s3", "awaiting_approval"],
  ])
  await a.kill()
  expect(calls(counter)).toEqual(["s1", "s2"])
  return { a, runId: suspended.runId as string }
}

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
    60_000,
  )

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
      expect(invalid.code).toBe(1)
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
    60_000,
  )
})
