// The upstream hop to an MCP 2026-07-28 server, same run: mcpBackend on 2026-07-28, mcpBackend on
// 2025-11-25 against the same dual-era server (SDK v2), and MCP SDK v2's own client (modern) against
// it. Over Streamable HTTP (one server process shared by all cases) and stdio (one server process per
// case). The figure is this (client) process's CPU per call, from process.cpuUsage, at c=1 and c=32,
// interleaved rounds, medians.
//
//   pnpm --filter @toolplane/plugin-mcp exec tsx --conditions=@toolplane/source bench/modernHop.bench.ts
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { makeContext } from "@toolplane/foundation"
import { type McpBackend, mcpBackend, NodeStdioTransport, NodeStreamableHttpTransport } from "../src/index.js"

const TSX = join(import.meta.dirname, "../../../node_modules/.bin/tsx")
const FIXTURE = join(import.meta.dirname, "../test/fixtures/modernServer.ts")
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const ROUND_MS = Number(process.env.ROUND_MS ?? 1500)

interface Case {
  readonly name: string
  readonly call: () => Promise<unknown>
  readonly close: () => Promise<void>
}

const children: ChildProcess[] = []
const startHttp = async (): Promise<string> => {
  const child = spawn(TSX, [FIXTURE, "--http"], { stdio: ["ignore", "pipe", "inherit"] })
  children.push(child)
  const port = await new Promise<number>((resolve) =>
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    }),
  )
  return `http://127.0.0.1:${port}/mcp`
}

const ours = async (name: string, backend: McpBackend): Promise<Case> => {
  await backend.connect()
  return {
    name,
    call: () => backend.execute({ toolId: "b/echo", arguments: { text: "hello" } }, makeContext()),
    close: () => backend.close(),
  }
}

const sdkV2 = async (name: string, transport: unknown, mode = "auto"): Promise<Case> => {
  const client = new Client({ name: "bench", version: "1.0.0" }, {
    versionNegotiation: { mode },
  } as never)
  await client.connect(transport as never)
  return {
    name,
    call: () => client.callTool({ name: "echo", arguments: { text: "hello" } }),
    close: () => client.close(),
  }
}

const sdkV1 = async (name: string, transport: unknown): Promise<Case> => {
  const client = new V1Client({ name: "bench", version: "1.0.0" })
  await client.connect(transport as never)
  return {
    name,
    call: () => client.callTool({ name: "echo", arguments: { text: "hello" } }),
    close: () => client.close(),
  }
}

/** Calls for `ms` at concurrency `c`; this process's CPU µs per call and calls per second. */
const measure = async (target: Case, c: number, ms: number): Promise<{ cpu: number; rate: number }> => {
  const end = Date.now() + ms
  let calls = 0
  const start = process.cpuUsage()
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (Date.now() < end) {
        await target.call()
        calls++
      }
    }),
  )
  const used = process.cpuUsage(start)
  const elapsed = performance.now() - t0
  return { cpu: (used.user + used.system) / calls, rate: (calls * 1000) / elapsed }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const run = async (title: string, cases: Case[]) => {
  for (const c of [1, 32]) {
    const results = new Map<string, { cpu: number[]; rate: number[] }>(
      cases.map((k) => [k.name, { cpu: [], rate: [] }]),
    )
    for (const k of cases) await measure(k, c, 300) // warm-up
    for (let r = 0; r < ROUNDS; r++)
      for (const k of r % 2 === 0 ? cases : [...cases].reverse()) {
        const m = await measure(k, c, ROUND_MS)
        results.get(k.name)!.cpu.push(m.cpu)
        results.get(k.name)!.rate.push(m.rate)
      }
    console.log(`\n${title}, c=${c} (${ROUNDS} rounds of ${ROUND_MS} ms, medians)`)
    console.log("| client | CPU µs/call (client process) | calls/s |")
    console.log("|---|---:|---:|")
    for (const [name, r] of results)
      console.log(`| ${name} | ${median(r.cpu).toFixed(0)} | ${median(r.rate).toFixed(0)} |`)
  }
}

try {
  const url = await startHttp()
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client")
  const http = [
    await ours(
      "mcpBackend, 2026-07-28",
      mcpBackend({ name: "b", http: { url } }, { protocol: "2026-07-28", requiresApproval: false }),
    ),
    await ours(
      "mcpBackend, 2025-11-25",
      mcpBackend({ name: "b", http: { url } }, { protocol: "2025-11-25", requiresApproval: false }),
    ),
    await sdkV2("SDK v2 Client, 2026-07-28", new StreamableHTTPClientTransport(new URL(url))),
    await sdkV2("SDK v2 Client, 2025-11-25", new StreamableHTTPClientTransport(new URL(url)), "legacy"),
    await sdkV2(
      "SDK v2 Client, 2025-11-25, our HTTP transport",
      new NodeStreamableHttpTransport(new URL(url)),
      "legacy",
    ),
    await sdkV1("SDK v1 Client, 2025-11-25", new V1HttpTransport(new URL(url))),
  ]
  await run("Streamable HTTP, dual-era SDK v2 server", http)
  for (const k of http) await k.close()
  const args = [FIXTURE]
  const stdio = [
    await ours(
      "mcpBackend, 2026-07-28",
      mcpBackend(
        { name: "b", stdio: { command: TSX, args } },
        { protocol: "2026-07-28", requiresApproval: false },
      ),
    ),
    await ours(
      "mcpBackend, 2025-11-25",
      mcpBackend(
        { name: "b", stdio: { command: TSX, args } },
        { protocol: "2025-11-25", requiresApproval: false },
      ),
    ),
    await sdkV2("SDK v2 Client, 2026-07-28", new StdioClientTransport({ command: TSX, args })),
    await sdkV2("SDK v2 Client, 2025-11-25", new StdioClientTransport({ command: TSX, args }), "legacy"),
    await sdkV2(
      "SDK v2 Client, 2025-11-25, our stdio transport",
      new NodeStdioTransport({ command: TSX, args }),
      "legacy",
    ),
  ]
  await run("stdio, dual-era SDK v2 server", stdio)
  for (const k of stdio) await k.close()
} finally {
  for (const child of children) child.kill()
}
