/**
 * Test helpers: run `toolplane serve` as a real subprocess (through tsx, against the TypeScript sources),
 * connect the official MCP SDK client to it, and always clean up process groups.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"

export const REPO = resolve(import.meta.dirname, "../../../..")
export const TSX = join(REPO, "node_modules", ".bin", "tsx")
export const MAIN = join(REPO, "packages", "cli", "src", "main.ts")
export const FIXTURES = resolve(import.meta.dirname, "..", "fixtures")
export const CURSOR_SECRET = "e2e-test-secret-0123456789abcdef0123456789"

/** The environment of a spawned gateway: this Node first on PATH (tsx's shebang), a fixed cursor key. */
export const childEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
  return {
    ...env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    TOOLPLANE_CURSOR_SECRET: CURSOR_SECRET,
    ...extra,
  }
}

export type Transport = "stdio" | "http"

export const serveArgs = (config: string, transport: Transport): string[] => [
  "--conditions=@toolplane/source",
  MAIN,
  "serve",
  "--config",
  config,
  "--transport",
  transport,
  ...(transport === "http" ? ["--port", "0"] : []),
]

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

const exited = (child: ChildProcess, ms: number): Promise<boolean> =>
  alive(child)
    ? new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms)
        child.once("exit", () => {
          clearTimeout(timer)
          resolve(true)
        })
      })
    : Promise.resolve(true)

const killGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** Stops a detached child and everything in its process group: SIGTERM, then SIGKILL after `graceMs`. */
export const stopGroup = async (child: ChildProcess, graceMs = 3000): Promise<void> => {
  if (child.pid === undefined) return
  if (alive(child)) {
    killGroup(child.pid, "SIGTERM")
    if (await exited(child, graceMs)) {
      killGroup(child.pid, "SIGKILL") // stragglers in the group (e.g. backend servers)
      return
    }
  }
  killGroup(child.pid, "SIGKILL")
  await exited(child, 2000)
}

/** A `toolplane serve --transport http --port 0` subprocess. */
export interface HttpGateway {
  readonly url: URL
  /** N of the "serving N tools" line. */
  readonly servedTools: number
  readonly child: ChildProcess
  stderr(): string
  stop(): Promise<void>
}

/** Every gateway subprocess started and not stopped yet (for cleanup after a failed or timed-out start). */
const running = new Set<ChildProcess>()

/** Stops every gateway subprocess still running (afterAll, whatever happened in beforeAll). */
export const stopAllGateways = async (): Promise<void> => {
  await Promise.all([...running].map((child) => stopGroup(child)))
}

const SERVING = /serving (\d+) tools over MCP Streamable HTTP at (\S+)/

/** Spawns `toolplane serve` over HTTP on an ephemeral port and waits for the "serving … at URL" line. */
export const startHttpGateway = async (
  config: string,
  options: {
    readonly env?: Record<string, string>
    readonly timeoutMs?: number
    /** Extra `toolplane serve` arguments (e.g. `["--http-transport", "sdk"]`). */
    readonly args?: readonly string[]
  } = {},
): Promise<HttpGateway> => {
  const timeoutMs = options.timeoutMs ?? 40_000
  const child = spawn(TSX, [...serveArgs(config, "http"), ...(options.args ?? [])], {
    env: childEnv(options.env),
    cwd: REPO,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  })
  running.add(child)
  child.once("exit", () => running.delete(child))
  let stderr = ""
  const stop = () => stopGroup(child)
  try {
    const match = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`toolplane serve did not listen within ${timeoutMs} ms; stderr:\n${stderr}`)),
        timeoutMs,
      )
      child.stderr!.setEncoding("utf8")
      child.stderr!.on("data", (chunk: string) => {
        stderr += chunk
        const m = SERVING.exec(stderr)
        if (m) {
          clearTimeout(timer)
          resolve(m)
        }
      })
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`toolplane serve exited (${code ?? signal}) before listening; stderr:\n${stderr}`))
      })
      child.once("error", (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
    return {
      url: new URL(match[2]!),
      servedTools: Number(match[1]),
      child,
      stderr: () => stderr,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** An SDK client connected to a gateway, and how to let go of it (and of the gateway, for stdio). */
export interface Connected {
  readonly client: Client
  /** stderr of the gateway process (stdio), or of the HTTP gateway. */
  stderr(): string
  close(): Promise<void>
}

/** How the test client is made: capabilities to declare and handlers to install before connecting. */
export interface ClientSetup {
  readonly capabilities?: ClientCapabilities
  readonly setup?: (client: Client) => void
}

const newClient = (options: ClientSetup = {}) => {
  const client = new Client(
    { name: "toolplane-e2e", version: "1.0.0" },
    { capabilities: options.capabilities ?? {} },
  )
  options.setup?.(client)
  return client
}

/** Spawns `toolplane serve --transport stdio` through the SDK's stdio transport and connects to it. */
export const connectStdio = async (config: string, options: ClientSetup = {}): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: TSX,
    args: serveArgs(config, "stdio"),
    env: childEnv(),
    cwd: REPO,
    stderr: "pipe",
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = newClient(options)
  const close = async () => {
    const pid = transport.pid
    await client.close().catch(() => {})
    if (pid !== null && pid !== undefined) {
      try {
        process.kill(pid, 0)
        process.kill(pid, "SIGKILL")
      } catch {
        // gone, as it should be
      }
    }
  }
  try {
    await client.connect(transport, { timeout: 40_000 })
  } catch (error) {
    await close()
    throw new Error(`cannot connect to toolplane serve over stdio: ${(error as Error).message}\n${stderr}`)
  }
  return { client, stderr: () => stderr, close }
}

/** Connects the SDK client to a Streamable HTTP endpoint. */
export const connectHttp = async (
  url: URL,
  stderr: () => string = () => "",
  options: ClientSetup = {},
): Promise<Connected> => {
  const client = newClient(options)
  await client.connect(new StreamableHTTPClientTransport(url))
  return { client, stderr, close: () => client.close().catch(() => {}) }
}

/** The text of every text block of a call result, joined by newlines. */
export const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n")
