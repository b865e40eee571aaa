/**
 * Serving overhead of serveHttp: the official MCP SDK client calls one echo tool over Streamable HTTP
 * on loopback, (a) served by an SDK `McpServer` directly (baseline) and (b) served by `serveHttp` from
 * an in-process ToolService built from foundation pieces (defineTool + paginateTools + invoke), at
 * concurrency 1 and 32. Prints throughput, p50/p99 and the ratio ours ÷ baseline. Rounds alternate
 * between the two so drift on a shared machine hits both.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench` (BENCH_SECONDS=n to change the measuring time).
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  defineTool,
  makeCursorCodec,
  paginateTools,
  randomCursorKey,
  ToolNotFound,
  type ToolService,
  toolOf,
} from "@toolplane/foundation"
import { z } from "zod"
import { createMcpServer, serveHttp } from "../src/index.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const CONCURRENCY = [1, 32]

/** Baseline: an SDK McpServer per session, on node:http, the shape of the SDK's own examples. */
const startBaseline = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"] as string | undefined
    const existing = id ? sessions.get(id) : undefined
    if (existing) return existing.handleRequest(req, res)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport)
      },
    })
    await baselineServer().connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()))
      await new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
    },
  }
}

const baselineServer = (): McpServer => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" })
  server.registerTool(
    "demo.echo",
    { description: "Echoes the text", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  )
  return server
}

/** The same tool defined with defineTool, behind a minimal ToolService. */
const echoService = (): ToolService => {
  const echo = defineTool({
    id: "demo/echo",
    description: "Echoes the text",
    input: z.object({ text: z.string() }),
    handler: ({ text }) => text,
  })
  const codec = makeCursorCodec({ keys: [randomCursorKey()] })
  const tools = [toolOf(echo)]
  const service: ToolService = {
    listTools: async (request = {}) => paginateTools(tools, { codec, pageSize: 100, cursor: request.cursor }),
    callTool: async (request) => {
      if (request.name !== echo.id) throw new ToolNotFound({ toolId: request.name, suggestions: [] })
      return echo.invoke(request.arguments ?? {}, request.context)
    },
  }
  return service
}

/** Ours: the ToolService served by serveHttp. */
const startOurs = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const handle = await serveHttp(echoService())
  return { url: handle.url, close: () => handle.close() }
}

/** Protocol cost alone (no HTTP): sequential calls over the SDK's in-memory transport, µs per call. */
const inMemory = async (server: { connect: McpServer["connect"] }, calls = 20_000): Promise<number> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(clientSide)
  const call = () => client.callTool({ name: "demo.echo", arguments: { text: "hello" } })
  for (let i = 0; i < 3000; i++) await call()
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) await call()
  const us = ((performance.now() - t0) * 1000) / calls
  await client.close()
  return us
}

interface Sample {
  readonly throughput: number
  readonly p50: number
  readonly p99: number
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const measure = async (url: string, concurrency: number): Promise<Sample> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const call = () => client.callTool({ name: "demo.echo", arguments: { text: "hello" } })
  // Warm up (JIT, connection pool).
  const warmUntil = Date.now() + 500
  while (Date.now() < warmUntil) await Promise.all(Array.from({ length: concurrency }, call))
  const latencies: number[] = []
  const stopAt = performance.now() + SECONDS * 1000
  const started = performance.now()
  const worker = async () => {
    while (performance.now() < stopAt) {
      const t0 = performance.now()
      const result = await call()
      latencies.push(performance.now() - t0)
      if ((result.content as { text?: string }[])[0]?.text !== "hello") throw new Error("wrong answer")
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  await client.close()
  latencies.sort((a, b) => a - b)
  return {
    throughput: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

const mean = (samples: readonly Sample[]): Sample => ({
  throughput: samples.reduce((s, x) => s + x.throughput, 0) / samples.length,
  p50: samples.reduce((s, x) => s + x.p50, 0) / samples.length,
  p99: samples.reduce((s, x) => s + x.p99, 0) / samples.length,
})

const memory = { baseline: [] as number[], ours: [] as number[] }
for (let round = 0; round < 2; round++) {
  memory.baseline.push(await inMemory(baselineServer()))
  memory.ours.push(await inMemory(createMcpServer(echoService())))
}

const baseline = await startBaseline()
const ours = await startOurs()
const results: Record<string, { baseline: Sample[]; ours: Sample[] }> = {}
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of CONCURRENCY) {
      const slot = (results[concurrency] ??= { baseline: [], ours: [] })
      // Alternate which goes first.
      if (round % 2 === 0) {
        slot.baseline.push(await measure(baseline.url, concurrency))
        slot.ours.push(await measure(ours.url, concurrency))
      } else {
        slot.ours.push(await measure(ours.url, concurrency))
        slot.baseline.push(await measure(baseline.url, concurrency))
      }
    }
  }
} finally {
  await Promise.all([baseline.close(), ours.close()])
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const lines = [
  "| concurrency | SDK McpServer calls/s | p50 ms | p99 ms | serveHttp calls/s | p50 ms | p99 ms | throughput ratio (ours ÷ SDK) |",
  "| ----------- | --------------------- | ------ | ------ | ----------------- | ------ | ------ | ----------------------------- |",
]
for (const concurrency of CONCURRENCY) {
  const b = mean(results[concurrency]!.baseline)
  const o = mean(results[concurrency]!.ours)
  lines.push(
    `| ${concurrency} | ${fmt(b.throughput)} | ${fmt(b.p50, 2)} | ${fmt(b.p99, 2)} | ${fmt(o.throughput)} | ${fmt(o.p50, 2)} | ${fmt(o.p99, 2)} | ${fmt(o.throughput / b.throughput, 2)} |`,
  )
}
console.log(
  `MCP tools/call over Streamable HTTP on loopback, ${ROUNDS} rounds × ${SECONDS}s per cell, Node ${process.versions.node}`,
)
console.log(lines.join("\n"))
const best = (xs: number[]) => Math.min(...xs)
console.log(
  `\nProtocol only (SDK in-memory transport, sequential, best of 2): SDK McpServer ${fmt(best(memory.baseline), 1)} µs/call, createMcpServer(ToolService) ${fmt(best(memory.ours), 1)} µs/call, ratio (SDK ÷ ours, >1 means ours is faster) ${fmt(best(memory.baseline) / best(memory.ours), 2)}`,
)
