/**
 * `toolplane serve --transport http --log-format json` as a subprocess, with its operator log parsed
 * line by line (the tests of the operator log, metrics and audit).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { childEnv, REPO, serveArgs, stopGroup, TSX } from "./processes.js"

/** One JSON line of the operator log. */
export type LogLine = { readonly time: string; readonly level: string; readonly event: string } & Record<
  string,
  unknown
>

/** A gateway subprocess logging JSON lines. */
export interface OpsGateway {
  readonly url: URL
  readonly child: ChildProcess
  /** Every JSON line so far. */
  lines(): LogLine[]
  stderr(): string
  /** The first line (from `from` on) matching `test`; waits for it up to `ms`. */
  waitFor(test: (line: LogLine) => boolean, what: string, ms?: number, from?: number): Promise<LogLine>
  stop(): Promise<void>
}

const started = new Set<ChildProcess>()

/** Stops every gateway this helper started and that is still running. */
export const stopOpsGateways = async (): Promise<void> => {
  await Promise.all([...started].map((child) => stopGroup(child)))
}

/** Options of {@link startOpsGateway}: more command-line arguments, and the gateway's environment. */
export interface OpsGatewayOptions {
  readonly args?: readonly string[]
  readonly env?: Record<string, string>
}

/** Spawns the gateway and waits for its `gateway.start` line. */
export const startOpsGateway = async (
  config: string,
  options: OpsGatewayOptions = {},
): Promise<OpsGateway> => {
  const child = spawn(TSX, [...serveArgs(config, "http"), "--log-format", "json", ...(options.args ?? [])], {
    env: childEnv(options.env),
    cwd: REPO,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  })
  started.add(child)
  child.once("exit", () => started.delete(child))
  let stderr = ""
  let partial = ""
  const lines: LogLine[] = []
  const waiters = new Set<() => void>()
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk
    partial += chunk
    const parts = partial.split("\n")
    partial = parts.pop() ?? ""
    for (const part of parts) {
      try {
        const parsed = JSON.parse(part) as LogLine
        if (typeof parsed === "object" && parsed !== null && typeof parsed.event === "string")
          lines.push(parsed)
      } catch {
        // not a log line (a backend's own stderr)
      }
    }
    for (const wake of [...waiters]) wake()
  })
  const waitFor = (test: (line: LogLine) => boolean, what: string, ms = 20_000, from = 0) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = lines.slice(from).find(test)
        if (found === undefined) return false
        clearTimeout(timer)
        waiters.delete(check)
        resolve(found)
        return true
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`timed out waiting for ${what}; log:\n${stderr}`))
      }, ms)
      if (!check()) waiters.add(check)
      child.once("exit", () => {
        if (waiters.has(check)) {
          clearTimeout(timer)
          waiters.delete(check)
          reject(new Error(`gateway exited while waiting for ${what}; log:\n${stderr}`))
        }
      })
    })
  try {
    const start = await waitFor((l) => l.event === "gateway.start", "gateway.start", 40_000)
    return {
      url: new URL(String(start.url)),
      child,
      lines: () => [...lines],
      stderr: () => stderr,
      waitFor,
      stop: () => stopGroup(child),
    }
  } catch (error) {
    await stopGroup(child)
    throw error
  }
}

/** One suite's gateway in a temporary directory (see {@link opsGatewaySuite}). */
export interface OpsGatewaySuite {
  /** The temporary directory (made on first use). */
  dir(): string
  /** `toolplane.toml` in that directory. */
  file(): string
  /** Writes `toolplane.toml` (the lines joined by newlines) and starts the gateway on it. */
  start(config: readonly string[], options?: OpsGatewayOptions): Promise<OpsGateway>
}

/**
 * A temporary directory named after `prefix` and the gateway a test starts in it, both stopped and removed
 * after the suite. Call it in a `describe` (it registers an `afterAll`).
 */
export const opsGatewaySuite = (prefix: string): OpsGatewaySuite => {
  let dir: string | undefined
  let gateway: OpsGateway | undefined
  afterAll(async () => {
    await gateway?.stop()
    await stopOpsGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 20_000)
  const suite: OpsGatewaySuite = {
    dir: () => {
      dir ??= mkdtempSync(join(tmpdir(), prefix))
      return dir
    },
    file: () => join(suite.dir(), "toolplane.toml"),
    start: async (config, options) => {
      writeFileSync(suite.file(), config.join("\n"))
      gateway = await startOpsGateway(suite.file(), options)
      return gateway
    },
  }
  return suite
}
