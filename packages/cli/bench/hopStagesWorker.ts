/**
 * The worker of `hopStages.bench.ts`: one checkout's gateway stack, in process, fronting the SDK upstream
 * (`upstream.ts`) over stdio and over Streamable HTTP. The parent (over IPC) asks it to run one cell at a
 * time; it answers with calls/s, p50, p99 and this process's CPU time per call over the timed part (user +
 * system from `process.cpuUsage`, after a warm-up). Stages, each a superset of the one before:
 *
 * - `floor`: the same request bytes written on a pipe to the same kind of upstream (its own process) or on
 *   a raw keep-alive socket to the same HTTP upstream, and the answer read back (framed, not parsed): the
 *   least any relay pays for the hop;
 * - `backend`: `mcpBackend.execute` of the gateway's backend, with a context made as the edge makes it (a
 *   per-call `AbortController`, `makeContext`);
 * - `runner`: the exec runner's `callTool` (resolution, validation, approval check, deadline and
 *   cancellation scope, retry policy);
 * - `gateway`: the service `openGateway` builds for `toolplane serve` (compose's `gatewayStack` over the
 *   runner, from a config like the peers benchmark's), the object the edge calls.
 *
 * Started with the upstream's URL (argv[2]) and the path of `upstream.ts` (argv[3]). Plain TypeScript that
 * Node's type stripping runs (no `.js` specifiers of TS files, no enums), for the `dist` mode.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { connect, type Socket } from "node:net"
import { makeContext, type ToolResult, type ToolService } from "@toolplane/foundation"
import type { McpBackend } from "@toolplane/plugin-mcp"
import type { Gateway } from "../src/gateway.js"

// From source (tsx and the source condition) or, with BENCH_GATEWAY_BUILD=dist, from the packages' built
// `dist/` (this file then runs on Node's own type stripping: no loader, no esbuild name wrappers).
const cliEntry =
  process.env.BENCH_GATEWAY_BUILD === "dist"
    ? "@toolplane/cli"
    : new URL("../src/index.ts", import.meta.url).href
const { openGateway, parseConfig } = (await import(cliEntry)) as typeof import("../src/index.js")

const [url, upstreamFile] = [process.argv[2]!, process.argv[3]!]
const upstreamArgs = (...flags: string[]): string[] => [
  "--conditions=@toolplane/source",
  "--import",
  import.meta.resolve("tsx"),
  upstreamFile,
  ...flags,
]

/** Calls `call` from `concurrency` callers at once, one after another each, for `ms` (the bench kit's closed loop). */
const closedLoop = async <A>(
  call: () => Promise<A>,
  options: { readonly concurrency: number; readonly ms: number; readonly check: (result: A) => void },
): Promise<{ calls: number; throughput: number; p50: number; p99: number }> => {
  const latencies: number[] = []
  const started = performance.now()
  const stopAt = started + options.ms
  const worker = async () => {
    while (performance.now() < stopAt) {
      const t0 = performance.now()
      const result = await call()
      latencies.push(performance.now() - t0)
      options.check(result)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!
  return { calls: latencies.length, throughput: latencies.length / elapsed, p50: at(50), p99: at(99) }
}

// BENCH_HEAP_PROFILE=<path prefix>: a sampling heap profile of each cell's timed part, collected objects
// included (`<prefix>-<upstream>-<stage>-<c>.heapprofile`, for Chrome DevTools).

/** One cell the parent asks for. */
export interface Cell {
  readonly upstream: "stdio" | "http"
  readonly stage: "floor" | "backend" | "runner" | "gateway"
  readonly concurrency: number
  readonly ms: number
}

/** What the worker answers for a cell. */
export interface CellResult {
  readonly throughput: number
  readonly p50: number
  readonly p99: number
  readonly cpuPerCall: number
  /** V8 heap bytes allocated per call (with `--expose-gc` and a young generation large enough for 2,000 calls). */
  readonly bytesPerCall?: number
}

const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const ARGS = { text: "hello" } as const
let nextId = 1_000_000
/** The floors' `initialize` request (id 0), the same on the pipe and on the socket. */
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "floor", version: "1" } },
}

const requestLine = (id: number): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: ARGS, _meta: { progressToken: `tp-${id}` } } })}\n`

/** A raw pipe to a stdio upstream: answers matched by id, read as lines, not parsed. */
const stdioFloor = async (): Promise<{ call: () => Promise<unknown>; close: () => void }> => {
  const child: ChildProcess = spawn(process.execPath, upstreamArgs("--stdio"), {
    stdio: ["pipe", "pipe", "inherit"],
  })
  const waiting = new Map<number, () => void>()
  let partial = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8")
    let start = 0
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      // The id is found without parsing: `"id":N` (the SDK writes it first or last).
      const line = text.slice(start, nl)
      const at = line.indexOf('"id":')
      const id = at < 0 ? Number.NaN : Number.parseInt(line.slice(at + 5), 10)
      waiting.get(id)?.()
      waiting.delete(id)
      start = nl + 1
    }
    partial = text.slice(start)
  })
  const send = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`)
  await new Promise<void>((resolve) => {
    waiting.set(0, resolve)
    send(INITIALIZE)
  })
  send({ jsonrpc: "2.0", method: "notifications/initialized" })
  return {
    call: () =>
      new Promise<void>((resolve) => {
        const id = nextId++
        waiting.set(id, resolve)
        child.stdin!.write(requestLine(id))
      }),
    close: () => child.kill(),
  }
}

/** Raw keep-alive sockets to the HTTP upstream (one per concurrent caller): request bytes out, answer framed by content-length. */
const httpFloor = async (): Promise<{ call: () => Promise<unknown>; close: () => void }> => {
  const target = new URL(url)
  const init = await fetch(target, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(INITIALIZE),
  })
  const session = init.headers.get("mcp-session-id")!
  await init.text()
  const headers = `host: ${target.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: 2025-06-18\r\n`
  const post = (body: string) =>
    `POST ${target.pathname} HTTP/1.1\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  await (
    await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text()
  interface Conn {
    readonly socket: Socket
    buffer: Buffer
    done: (() => void) | undefined
    /** The request in flight, sent again on a new socket when the server closed this one (idle timeout). */
    sent: string | undefined
    closed: boolean
  }
  const idle: Conn[] = []
  const all: Conn[] = []
  const open = (): Promise<Conn> =>
    new Promise((resolve) => {
      const socket = connect(Number(target.port), target.hostname, () => resolve(conn))
      socket.setNoDelay(true)
      const conn: Conn = { socket, buffer: Buffer.alloc(0), done: undefined, sent: undefined, closed: false }
      all.push(conn)
      socket.on("error", () => {})
      socket.on("close", () => {
        conn.closed = true
        const i = idle.indexOf(conn)
        if (i >= 0) idle.splice(i, 1)
        const { done, sent } = conn
        if (done !== undefined && sent !== undefined) void exchange(sent).then(done)
      })
      socket.on("data", (chunk: Buffer) => {
        conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk])
        const end = conn.buffer.indexOf("\r\n\r\n")
        if (end < 0) return
        const head = conn.buffer.toString("latin1", 0, end)
        const m = /content-length: *(\d+)/i.exec(head)
        const length = m ? Number(m[1]) : 0
        if (conn.buffer.length < end + 4 + length) return
        conn.buffer = conn.buffer.subarray(end + 4 + length)
        const done = conn.done
        conn.done = undefined
        conn.sent = undefined
        done?.()
      })
    })
  const exchange = async (message: string): Promise<void> => {
    let conn = idle.pop()
    while (conn?.closed) conn = idle.pop()
    conn ??= await open()
    const c = conn
    await new Promise<void>((resolve) => {
      c.done = resolve
      c.sent = message
      c.socket.write(message)
    })
    if (!c.closed) idle.push(c)
  }
  return {
    call: () => exchange(post(requestLine(nextId++).slice(0, -1))),
    close: () => {
      for (const c of all) c.socket.destroy()
    },
  }
}

const config = (mcp: string) =>
  parseConfig(
    `[server]\nname = "bench-gateway"\ntool_names = "name"\n\n[[backends]]\nname = "up"\nmcp = ${mcp}\nrequire_approval = false\n`,
  )
const env = { TOOLPLANE_CURSOR_SECRET: "hop-stages-bench-secret-0123456789" }
const gateways: Record<"stdio" | "http", Gateway> = {
  stdio: await openGateway(
    config(
      `{ command = ${JSON.stringify(process.execPath)}, args = ${JSON.stringify(upstreamArgs("--stdio"))} }`,
    ),
    { env },
  ),
  http: await openGateway(config(`{ url = ${JSON.stringify(url)} }`), { env }),
}
const floors = { stdio: await stdioFloor(), http: await httpFloor() }
const backendOf = (g: Gateway): McpBackend => g.backends().get("up")!.backend as McpBackend

const edgeContext = () => makeContext({ signal: new AbortController().signal, sessionId: "s1" })
const check = (result: unknown) => {
  if (result === undefined) return
  const text = ((result as ToolResult).content[0] as { text?: string } | undefined)?.text
  if (text !== "hello") throw new Error(`wrong answer: ${JSON.stringify(result)}`)
}
const callOf = (cell: Cell): (() => Promise<unknown>) => {
  const g = gateways[cell.upstream]
  switch (cell.stage) {
    case "floor":
      return floors[cell.upstream].call
    case "backend": {
      const backend = backendOf(g)
      return () => backend.execute({ toolId: "up/echo", arguments: ARGS, validated: true }, edgeContext())
    }
    case "runner":
      return () => g.runner.callTool({ name: "up/echo", arguments: ARGS, context: edgeContext() })
    case "gateway": {
      const service: ToolService = g.service
      return () => service.callTool({ name: "up/echo", arguments: ARGS, context: edgeContext() })
    }
  }
}

const run = async (cell: Cell): Promise<CellResult> => {
  const call = callOf(cell)
  // Warm-up outside the CPU window.
  await closedLoop(call, { concurrency: cell.concurrency, ms: 150, check })
  const gc = (globalThis as { gc?: () => void }).gc
  let bytesPerCall: number | undefined
  if (gc !== undefined) {
    // 2,000 calls between two full GCs; with --max-semi-space-size large enough, nothing is collected in between.
    const n = 2000
    gc()
    const h0 = process.memoryUsage().heapUsed
    const each = Math.ceil(n / cell.concurrency)
    await Promise.all(
      Array.from({ length: cell.concurrency }, async () => {
        for (let i = 0; i < each; i++) await call()
      }),
    )
    bytesPerCall = (process.memoryUsage().heapUsed - h0) / (each * cell.concurrency)
  }
  const profile = process.env.BENCH_HEAP_PROFILE
  const session = profile === undefined ? undefined : new (await import("node:inspector/promises")).Session()
  if (session !== undefined) {
    session.connect()
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 128,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    })
  }
  const before = cpuUs()
  const sample = await closedLoop(call, { concurrency: cell.concurrency, ms: cell.ms, check })
  // closedLoop's workers each finish their last call after the window: count those calls too.
  const cpu = cpuUs() - before
  if (session !== undefined) {
    const { profile: heap } = await session.post("HeapProfiler.stopSampling")
    const { writeFileSync } = await import("node:fs")
    writeFileSync(
      `${profile}-${cell.upstream}-${cell.stage}-${cell.concurrency}.heapprofile`,
      JSON.stringify(heap),
    )
    session.disconnect()
  }
  return {
    throughput: sample.throughput,
    p50: sample.p50,
    p99: sample.p99,
    cpuPerCall: cpu / sample.calls,
    ...(bytesPerCall === undefined ? {} : { bytesPerCall }),
  }
}

process.on("message", (message: { cell?: Cell; stop?: true }) => {
  if (message.stop) {
    floors.stdio.close()
    floors.http.close()
    Promise.all([gateways.stdio.close(), gateways.http.close()]).finally(() => process.exit(0))
    return
  }
  run(message.cell!).then(
    (result) => process.send!({ result }),
    (error: unknown) => process.send!({ error: String((error as Error)?.stack ?? error) }),
  )
})
process.send!({ ready: true })
