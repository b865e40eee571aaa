/**
 * A lean MCP stdio client transport: spawns the server as a subprocess (optionally in its own process
 * group) and speaks newline-delimited JSON-RPC over its stdin/stdout. Compared with the SDK's
 * `StdioClientTransport` it does no per-message schema validation (the SDK client validates what it
 * reads), frames lines without copying buffers (a line spanning chunks is joined once), and keeps each
 * response's JSON text so that a result the gateway relays untouched can be written verbatim (see
 * `internal/resultJson.ts`). Closing ends stdin, then sends SIGTERM and SIGKILL after a grace period
 * each; with `processGroup` to the whole group, so a server started through a wrapper (`npx`, `sh -c`)
 * does not outlive the backend.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough, type Stream } from "node:stream"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server"
import { keepMessageText } from "../internal/resultJson.js"

/**
 * Options of {@link NodeStdioTransport}.
 *
 * @since 0.1.0
 */
export interface NodeStdioTransportOptions {
  readonly command: string
  readonly args?: readonly string[]
  /** Added to a safe default environment (PATH, HOME, ...), as the MCP SDK does. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** The subprocess's stderr: `"pipe"` (read it from {@link NodeStdioTransport.stderr}), `"inherit"` (default) or `"ignore"`. */
  readonly stderr?: "pipe" | "inherit" | "ignore"
  /** Longest line accepted from the server, in bytes. Default 64 MiB. */
  readonly maxLineBytes?: number
  /**
   * Run the server in its own process group (POSIX; a new session), so `close()` signals everything it
   * started (a wrapper's children too). Default `false`: the server stays in the gateway's session, as
   * with the SDK's transport, because on Linux with scheduler autogroups a new session is scheduled as a
   * separate group, which measurably slowed every round trip to the server on a loaded machine.
   */
  readonly processGroup?: boolean
  /** Time the server has to exit after its stdin closes, and again after SIGTERM. Default 2000 ms. */
  readonly closeGraceMs?: number
}

const NEWLINE = 10
const RESOLVED = Promise.resolve()
const DEFAULT_MAX_LINE = 64 * 1024 * 1024

const isMessage = (value: unknown): value is JSONRPCMessage =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  (value as { jsonrpc?: unknown }).jsonrpc === "2.0"

/**
 * The MCP stdio client transport on `node:child_process`.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/client"
 * import { NodeStdioTransport } from "@toolplane/plugin-mcp"
 *
 * const client = new Client({ name: "me", version: "1.0.0" })
 * await client.connect(new NodeStdioTransport({ command: "mcp-server-everything" }))
 * ```
 * @since 0.1.0
 */
export class NodeStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T) => void

  readonly #options: NodeStdioTransportOptions
  readonly #maxLine: number
  readonly #stderr: PassThrough | undefined
  #process: ChildProcess | undefined
  /** Bytes of a line not finished yet (chunks, in order). */
  #partial: Buffer[] = []
  #partialBytes = 0
  #closed = false
  #exited = false
  readonly #group: boolean
  /** Messages sent this tick, written together on the next. */
  #queue: string[] = []

  constructor(options: NodeStdioTransportOptions) {
    this.#options = options
    this.#maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE
    this.#group = options.processGroup === true && process.platform !== "win32"
    // A stream to listen on before start(), so no early stderr output is lost.
    if (options.stderr === "pipe") this.#stderr = new PassThrough()
  }

  /** The server's stderr (with `stderr: "pipe"`), available before `start()`. */
  get stderr(): Stream | null {
    return this.#stderr ?? null
  }

  /** How the subprocess ended (`"code 3"`, `"signal SIGKILL"`), once it has. @since 0.1.0 */
  exitStatus: string | undefined = undefined

  /** The subprocess id, once started. */
  get pid(): number | null {
    return this.#process?.pid ?? null
  }

  start(): Promise<void> {
    if (this.#process) throw new Error("NodeStdioTransport already started")
    const options = this.#options
    return new Promise((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(options.command, [...(options.args ?? [])], {
          env: { ...getDefaultEnvironment(), ...options.env },
          stdio: ["pipe", "pipe", options.stderr === "pipe" ? "pipe" : (options.stderr ?? "inherit")],
          shell: false,
          windowsHide: true,
          // Its own process group, so close() can stop what it spawned too.
          detached: this.#group,
          ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        })
      } catch (error) {
        reject(error)
        return
      }
      this.#process = child
      let started = false
      child.once("error", (error) => {
        if (!started) {
          // Never ran (no such command, no permission): nothing to wait for or signal on close.
          this.#exited = true
          reject(error)
        }
        this.onerror?.(error)
      })
      child.once("spawn", () => {
        started = true
        resolve()
      })
      child.once("close", (code, signal) => {
        this.exitStatus = signal === null ? `code ${code}` : `signal ${signal}`
        this.#exited = true
        this.#process = undefined
        this.#partial = []
        this.#partialBytes = 0
        this.onclose?.()
      })
      child.stdin!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("data", (chunk: Buffer) => this.#read(chunk))
      if (this.#stderr && child.stderr) child.stderr.pipe(this.#stderr)
    })
  }

  /** Splits a chunk into lines; a line spanning chunks is joined once, when its end arrives. */
  #read(chunk: Buffer): void {
    let start = 0
    let nl = chunk.indexOf(NEWLINE)
    if (nl < 0) {
      this.#hold(chunk)
      return
    }
    if (this.#partialBytes > 0) {
      this.#partial.push(chunk.subarray(0, nl))
      const line = Buffer.concat(this.#partial, this.#partialBytes + nl)
      this.#partial = []
      this.#partialBytes = 0
      this.#line(line.toString("utf8"))
      start = nl + 1
      nl = chunk.indexOf(NEWLINE, start)
    }
    while (nl >= 0) {
      if (nl > start) this.#line(chunk.toString("utf8", start, nl))
      start = nl + 1
      nl = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start))
  }

  #hold(bytes: Buffer): void {
    this.#partialBytes += bytes.length
    if (this.#partialBytes > this.#maxLine) {
      this.#partial = []
      this.#partialBytes = 0
      this.onerror?.(new Error(`stdio message longer than ${this.#maxLine} bytes; dropped`))
      return
    }
    this.#partial.push(bytes)
  }

  #line(text: string): void {
    // A trailing \r (CRLF framing) and blank lines are tolerated; JSON.parse ignores surrounding whitespace.
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // Servers that print non-JSON lines to stdout (banners, debug output) are common: report, go on.
      this.onerror?.(new Error(`invalid JSON on the server's stdout: ${(error as Error).message}`))
      return
    }
    if (!isMessage(value)) {
      this.onerror?.(new Error(`not a JSON-RPC message on the server's stdout: ${text.slice(0, 200)}`))
      return
    }
    keepMessageText(value, text)
    this.onmessage?.(value)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.#process?.stdin || this.#closed) return Promise.reject(new Error("Not connected"))
    // Messages sent in one tick go out in one write (one syscall, one wake-up of the server).
    if (this.#queue.length === 0) process.nextTick(this.#flush)
    this.#queue.push(`${JSON.stringify(message)}\n`)
    return RESOLVED
  }

  readonly #flush = (): void => {
    const queue = this.#queue
    if (queue.length === 0) return
    this.#queue = []
    const stdin = this.#process?.stdin
    if (!stdin?.writable) return
    stdin.write(queue.length === 1 ? queue[0]! : queue.join(""))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const child = this.#process
    if (child && !this.#exited) {
      const grace = this.#options.closeGraceMs ?? 2000
      const exited = new Promise<void>((resolve) => child.once("close", () => resolve()))
      const within = (ms: number) =>
        Promise.race([
          exited.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
        ])
      this.#flush()
      try {
        child.stdin?.end()
      } catch {
        // Already closed.
      }
      if (!(await within(grace))) {
        this.#signal(child, "SIGTERM")
        if (!(await within(grace))) this.#signal(child, "SIGKILL")
      }
      // What the server left behind in its group (a wrapper's children) goes with it.
      if (this.#group) this.#signal(child, "SIGKILL", true)
    }
    this.#partial = []
    this.#partialBytes = 0
  }

  /** Signals the server's process group (POSIX), else the process itself. */
  #signal(child: ChildProcess, signal: NodeJS.Signals, groupOnly = false): void {
    const pid = child.pid
    if (pid === undefined) return
    if (this.#group) {
      try {
        process.kill(-pid, signal)
        return
      } catch {
        // The group is gone (or was never ours).
      }
    }
    if (groupOnly) return
    try {
      child.kill(signal)
    } catch {
      // Already gone.
    }
  }
}
