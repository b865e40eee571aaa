/**
 * Serving overhead of serveHttp: the official MCP SDK client calls one echo tool over Streamable HTTP
 * on loopback, (a) served by an SDK `McpServer` directly (baseline) and (b) served by `serveHttp` from
 * an in-process ToolService built from foundation pieces (defineTool + paginateTools + invoke), at
 * concurrency 1 and 32. Prints throughput, p50/p99 and the ratio ours ÷ baseline (medians of rounds).
 * Rounds interleave the two (@toolplane/bench-kit) so drift on a shared machine hits both.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench` (BENCH_ROUNDS, BENCH_ROUND_MS per cell and round,
 * BENCH_CONCURRENCY).
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
  benchSettings,
  closedLoop,
  compare,
  compareLoad,
  comparisonTable,
  heading,
  type LoadResults,
  type LoadSample,
  loadTable,
  roundsLine,
} from "@toolplane/bench-kit"
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

const settings = benchSettings({ rounds: 2, roundMs: 3000, concurrency: [1, 32] })

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

/** An SDK client connected to `server` over the SDK's in-memory transport (protocol cost alone, no HTTP). */
const inMemoryClient = async (server: { connect: McpServer["connect"] }): Promise<Client> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(clientSide)
  return client
}

const measure = async (url: string, concurrency: number): Promise<LoadSample> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  try {
    return await closedLoop(() => client.callTool({ name: "demo.echo", arguments: { text: "hello" } }), {
      concurrency,
      ms: settings.roundMs,
      warmupMs: 500,
      check: (result) => {
        if ((result.content as { text?: string }[])[0]?.text !== "hello") throw new Error("wrong answer")
      },
    })
  } finally {
    await client.close()
  }
}

const memoryClients = [
  await inMemoryClient(baselineServer()),
  await inMemoryClient(createMcpServer(echoService())),
]
const echoCall = (client: Client) => () =>
  client.callTool({ name: "demo.echo", arguments: { text: "hello" } })
const memory = await compare(
  [
    { name: "SDK McpServer, in-memory transport", fn: echoCall(memoryClients[0]!) },
    { name: "createMcpServer(ToolService), in-memory transport", fn: echoCall(memoryClients[1]!) },
  ],
  { rounds: settings.rounds * 3, roundMs: Math.min(settings.roundMs, 500) },
)
await Promise.all(memoryClients.map((c) => c.close()))

const baseline = await startBaseline()
const ours = await startOurs()
let results: LoadResults
try {
  results = await compareLoad(
    (side, concurrency) => measure(side === "baseline" ? baseline.url : ours.url, concurrency),
    settings,
  )
} finally {
  await Promise.all([baseline.close(), ours.close()])
}

console.log(
  heading(
    "MCP tools/call over Streamable HTTP on loopback",
    `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
  ),
)
console.log(loadTable(results, { baseline: "SDK McpServer", candidate: "serveHttp" }))
console.log(
  `\nProtocol only (SDK in-memory transport, sequential calls; ${roundsLine({ rounds: settings.rounds * 3, roundMs: Math.min(settings.roundMs, 500) })}):\n`,
)
console.log(comparisonTable(memory, { baseline: memory[0]!.name }))
