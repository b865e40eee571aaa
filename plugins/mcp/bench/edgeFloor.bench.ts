/**
 * What the HTTP edge of `serveHttp` costs, against the floors: the same client (this process, one
 * keep-alive socket per worker, a minimal HTTP/1.1 client so it stays light) POSTs the same MCP
 * `tools/call` of an echo tool to, each in its own process (bench/edgeFloorServer.ts):
 *
 * - a bare `node:http` server answering a fixed JSON result (what node:http alone costs),
 * - a bare `node:net` server with a minimal HTTP/1.1 parser (what parsing HTTP yourself costs),
 * - `serveHttp` with `transport: "node"` (node:http edge) and `transport: "raw"` (the raw edge),
 *
 * at concurrency 1 and 32, rounds interleaved (@toolplane/bench-kit). Reports calls/s, p50, p99 and the
 * CPU time per call of each server process (from /proc), the figure that shows what is removable.
 *
 * With `BENCH_BASE_CHECKOUT=<another checkout>` (e.g. a `git worktree` of `main`, `pnpm install` done), the
 * sides default to `raw-base,raw,http` (ratios to the base): a side named `<kind>-base` is that checkout's own server script
 * with its own source, in the same interleaved rounds; a
 * side `<kind>@<folder>` does the same with any checkout (e.g. a worktree of an intermediate commit).
 *
 * With BENCH_EDGE_HEAP=1 it first measures the V8 heap bytes each server allocates per call (see
 * `measureHeap`): a figure the machine's load does not move.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench:edge` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY,
 * BENCH_EDGE_SIDES, BENCH_BASE_CHECKOUT, BENCH_EDGE_HEAP).
 */
import { existsSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  benchSettings,
  fmt,
  heading,
  loadWithCpu,
  markdownTable,
  median,
  spawnNodeUntil,
  stopProcess,
} from "@toolplane/bench-kit"
import { measureSides, type SideResults, sidesTables } from "./loadSides.js"

const here = dirname(fileURLToPath(import.meta.url))
const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const baseCheckout = process.env.BENCH_BASE_CHECKOUT
/** BENCH_EDGE_HEAP=1: also measure heap bytes allocated per call (the servers get a big young generation). */
const HEAP = process.env.BENCH_EDGE_HEAP === "1"
const HEAP_ARGS = HEAP ? ["--expose-gc", "--min-semi-space-size=64", "--max-semi-space-size=64"] : []
const HEAP_CALLS = 2000
const HEAP_WINDOWS = 5
const SIDES = (
  process.env.BENCH_EDGE_SIDES ?? (baseCheckout ? "raw-base,raw,http" : "http,net,node,raw")
).split(",")

/**
 * The server script and working folder of a side: this checkout's, the base checkout's (`<kind>-base`), or
 * any other checkout's (`<kind>@<folder>`, e.g. a worktree of an intermediate commit).
 */
const serverOf = (side: string): { kind: string; script: string; cwd: string } => {
  const at = side.indexOf("@")
  const checkout = at > 0 ? side.slice(at + 1) : side.endsWith("-base") ? baseCheckout : undefined
  if (at < 0 && !side.endsWith("-base"))
    return { kind: side, script: join(here, "edgeFloorServer.ts"), cwd: here }
  if (!checkout) throw new Error(`side ${side} needs BENCH_BASE_CHECKOUT`)
  const folder = join(resolve(checkout), "plugins/mcp/bench")
  const own = join(folder, "edgeFloorServer.ts")
  // The checkout's own copy imports its own source (this folder's would import this checkout's).
  if (!existsSync(own)) throw new Error(`${own} is missing: copy bench/edgeFloorServer.ts there`)
  return { kind: at > 0 ? side.slice(0, at) : side.slice(0, -"-base".length), script: own, cwd: folder }
}

/** One keep-alive connection sending POSTs one at a time and reading `content-length` answers. */
class MiniClient {
  readonly #socket: Socket
  #buffer: Buffer = Buffer.alloc(0)
  #waiting: ((body: string) => void) | undefined
  constructor(port: number) {
    this.#socket = connect(port, "127.0.0.1")
    this.#socket.setNoDelay(true)
    this.#socket.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
      const end = this.#buffer.indexOf("\r\n\r\n")
      if (end < 0) return
      const head = this.#buffer.toString("latin1", 0, end)
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? Number.NaN)
      if (!Number.isFinite(length)) throw new Error(`no content-length: ${head}`)
      if (this.#buffer.length < end + 4 + length) return
      const body = this.#buffer.toString("utf8", end + 4, end + 4 + length)
      this.#buffer = this.#buffer.subarray(end + 4 + length)
      const wake = this.#waiting
      this.#waiting = undefined
      wake?.(body)
    })
  }
  post(request: string): Promise<string> {
    return new Promise((resolve) => {
      this.#waiting = resolve
      this.#socket.write(request)
    })
  }
  close() {
    this.#socket.destroy()
  }
}

const start = async (side: string) => {
  const { kind, script, cwd } = serverOf(side)
  const { child, match } = await spawnNodeUntil(
    [...HEAP_ARGS, "--conditions=@toolplane/source", "--import", "tsx", script, kind],
    { pattern: /^(http:\/\/\S+)\n/, cwd },
  )
  const url = new URL(match)
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  }
  let session = ""
  if (kind !== "http" && kind !== "net") {
    const init = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bench", version: "0" },
        },
      }),
    })
    session = init.headers.get("mcp-session-id") ?? ""
    await init.text()
    const initialized = await fetch(url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
    await initialized.text()
  }
  let next = 1
  const request = () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: next++,
      method: "tools/call",
      params: { name: "demo.echo", arguments: { text: "hello" } },
    })
    return `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n${session ? `mcp-session-id: ${session}\r\n` : ""}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  }
  return { kind: side, child, port: Number(url.port), request }
}

type Side = Awaited<ReturnType<typeof start>>
const servers: Side[] = []

/**
 * One reading of the server's V8 heap (`gc` first: after two full collections) and how many collections
 * it has seen, from the server script's heap probe (BENCH_EDGE_HEAP).
 */
const heapReading = (server: Side, gc: boolean): Promise<{ used: number; collections: number }> =>
  new Promise((resolve) => {
    let seen = ""
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = /heap (\d+) (\d+)\n/.exec(seen)
      if (!match) return
      server.child.stdout!.off("data", onData)
      resolve({ used: Number(match[1]), collections: Number(match[2]) })
    }
    server.child.stdout!.on("data", onData)
    server.child.kill(gc ? "SIGHUP" : "SIGUSR2")
  })

/**
 * V8 heap bytes allocated per call by each side's server: calls one at a time between two readings of its
 * heap with no collection between them (young generation sized so; a window with one is measured again),
 * after a warm-up; medians of `HEAP_WINDOWS` windows of `HEAP_CALLS` calls. Deterministic where CPU time
 * is not: what a change allocates less shows here whatever the machine's load.
 */
const measureHeap = async (): Promise<Map<string, number[]>> => {
  const bytes = new Map<string, number[]>()
  for (const server of servers) {
    const client = new MiniClient(server.port)
    try {
      for (let i = 0; i < 10_000; i++) await client.post(server.request())
      const samples: number[] = []
      for (let attempt = 0; samples.length < HEAP_WINDOWS && attempt < HEAP_WINDOWS * 3; attempt++) {
        const before = await heapReading(server, true)
        for (let i = 0; i < HEAP_CALLS; i++) await client.post(server.request())
        const after = await heapReading(server, false)
        if (after.collections === before.collections) samples.push((after.used - before.used) / HEAP_CALLS)
      }
      bytes.set(server.kind, samples)
    } finally {
      client.close()
    }
  }
  return bytes
}
for (const kind of SIDES) {
  servers.push(await start(kind))
}
let results: SideResults
let heap: Map<string, number[]> | undefined
try {
  if (HEAP) heap = await measureHeap()
  results = await measureSides(SIDES, settings, async (kind, c) => {
    const server = servers.find((s) => s.kind === kind)!
    const clients = Array.from({ length: c }, () => new MiniClient(server.port))
    // Each call takes a free connection and gives it back: at most `c` calls are in flight.
    const free = [...clients]
    const call = async () => {
      const client = free.pop()!
      try {
        return await client.post(server.request())
      } finally {
        free.push(client)
      }
    }
    try {
      return await loadWithCpu(call, {
        pid: server.child.pid,
        concurrency: c,
        ms: settings.roundMs,
        check: (body) => {
          if (!body.includes('"text":"hello"')) throw new Error(`wrong answer from ${kind}: ${body}`)
        },
      })
    } finally {
      for (const client of clients) client.close()
    }
  })
} finally {
  await Promise.all(servers.map((s) => stopProcess(s.child)))
}

const LABELS: Record<string, string> = {
  http: "bare node:http",
  net: "bare node:net + minimal parser",
  node: 'serveHttp transport "node"',
  raw: 'serveHttp transport "raw"',
  sdk: 'serveHttp transport "sdk"',
  "node-base": 'serveHttp transport "node" (base checkout)',
  "raw-base": 'serveHttp transport "raw" (base checkout)',
}
console.log(
  heading(
    "serveHttp edge against the floors: one small JSON POST (tools/call of an echo tool) per call",
    `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; ratios are medians of per-round ratios to the first row`,
  ),
)
console.log(sidesTables(results, LABELS))
if (heap) {
  const first = median(heap.get(SIDES[0]!) ?? [])
  console.log(
    `\nV8 heap bytes allocated per call by each server (concurrency 1, ${HEAP_WINDOWS} windows of ${HEAP_CALLS} calls without a collection, medians):\n`,
  )
  console.log(
    markdownTable(
      ["side", "bytes/call", `÷ ${LABELS[SIDES[0]!] ?? SIDES[0]}`, "windows"],
      SIDES.map((side) => {
        const samples = heap.get(side) ?? []
        return [
          LABELS[side] ?? side,
          fmt(median(samples)),
          fmt(median(samples) / first, 2),
          samples.map((b) => Math.round(b)).join(", "),
        ]
      }),
    ),
  )
}
