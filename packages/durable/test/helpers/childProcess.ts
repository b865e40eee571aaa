/** Helpers of the crash tests: the runner fixture as a real subprocess, temp run files, the call log. */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach } from "vitest"

const REPO = join(import.meta.dirname, "..", "..", "..", "..")
const FIXTURE = join(import.meta.dirname, "..", "fixtures", "skillProcess.ts")

export interface Child {
  readonly pid: number
  readonly lines: () => unknown[]
  readonly waitFor: (predicate: (line: any) => boolean) => Promise<any>
  readonly kill: () => Promise<void>
  readonly exited: Promise<number | null>
  /** Writes a line to the process's stdin (the start signal of `resume` and `poll`). */
  readonly send: (line: string) => void
}

export const run = (args: readonly string[], env: Record<string, string> = {}): Child => {
  const child = spawn(
    process.execPath,
    ["--conditions=@toolplane/source", "--import", "tsx", "--no-warnings", FIXTURE, ...args],
    { cwd: REPO, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] },
  )
  const lines: unknown[] = []
  let buffer = ""
  let stderr = ""
  const waiters: { predicate: (line: any) => boolean; resolve: (line: unknown) => void }[] = []
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    let nl = buffer.indexOf("\n")
    while (nl >= 0) {
      const line = JSON.parse(buffer.slice(0, nl))
      buffer = buffer.slice(nl + 1)
      lines.push(line)
      for (const w of [...waiters]) if (w.predicate(line)) w.resolve(line)
      nl = buffer.indexOf("\n")
    }
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  return {
    pid: child.pid!,
    lines: () => lines,
    waitFor: (predicate) =>
      new Promise((resolve, reject) => {
        const found = lines.find(predicate)
        if (found !== undefined) return resolve(found)
        waiters.push({ predicate, resolve })
        void exited.then((code) => reject(new Error(`process exited (${code}) first:\n${stderr}`)))
      }),
    kill: async () => {
      child.kill("SIGKILL")
      await exited
    },
    exited,
    send: (line) => child.stdin.write(`${line}\n`),
  }
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
/** A temp directory with a run file path (the SQLite storage) and a call log path. */
export const setup = () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-"))
  dirs.push(dir)
  return { file: join(dir, "runs.db"), counter: join(dir, "calls.log") }
}
const logLines = (counter: string) =>
  existsSync(counter) ? readFileSync(counter, "utf8").trim().split("\n").filter(Boolean) : []
/** The steps called, in call order (one entry per tool call, from every process). */
export const calls = (counter: string) => logLines(counter).map((l) => l.split(" ")[0])
/** The pid of the process that made each call. */
export const callers = (counter: string) => logLines(counter).map((l) => Number(l.split(" ").at(-1)))
