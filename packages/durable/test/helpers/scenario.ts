/** The distributed scenario's shared steps: runner A started and SIGKILLed, the real CLI as a subprocess. */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { expect } from "vitest"
import { calls, run } from "./childProcess.js"

const REPO = join(import.meta.dirname, "..", "..", "..", "..")
export const CLI = join(REPO, "packages", "cli", "src", "main.ts")

/** Runs `toolplane <args>` from the CLI's sources; resolves with its exit code and output. */
export const toolplane = (args: readonly string[]) =>
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
export const startAndKill = async (storage: string, counter: string) => {
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
