/**
 * The server side of a relayed call, by HTTP transport: two `toolplane serve --transport http` processes
 * fronting the same upstream MCP server (bench/upstream.ts, its own process), one with the baseline
 * `[server] http_transport` and one with the candidate: by default `"node"` (the lean transport on
 * node:http; baseline) and `"raw"` (the same behind the raw HTTP/1.1 edge, opt-in);
 * `BENCH_HTTP_TRANSPORTS=sdk,node` compares others. The official SDK client (this process) calls `echo` through
 * each, at concurrency 1 and 32, rounds interleaved (@toolplane/bench-kit), medians of rounds. Reports
 * throughput, p50/p99 and the CPU time per call of each gateway process alone (/proc/<pid>/stat), the
 * figure that shows what the gateway costs when the client saturates the machine.
 *
 * Run: `pnpm --filter @toolplane/cli bench:transport` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  benchSettings,
  compareLoad,
  cpuTable,
  heading,
  loadTable,
  loadWithCpu,
  spawnNodeUntil,
  stopProcess,
} from "@toolplane/bench-kit"
import { gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
type HttpTransport = "raw" | "node" | "sdk"
const [baseline, candidate] = (process.env.BENCH_HTTP_TRANSPORTS ?? "node,raw").split(",") as [
  HttpTransport,
  HttpTransport,
]
for (const t of [baseline, candidate])
  if (t !== "raw" && t !== "node" && t !== "sdk")
    throw new RangeError(
      `BENCH_HTTP_TRANSPORTS must name two of raw, node, sdk; got ${process.env.BENCH_HTTP_TRANSPORTS}`,
    )
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")

const env = { TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef" }

const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-transport-"))
const children: ChildProcess[] = []
const clients: Client[] = []
try {
  const upstream = await spawnNodeUntil(tsNode(join(here, "upstream.ts"), "--json"), {
    pattern: /^(http:\/\/\S+)\n/,
    cwd: cliDir,
    env,
  })
  children.push(upstream.child)
  const upstreamUrl = upstream.match
  const gatewayOf = async (transport: HttpTransport) => {
    const config = join(tmp, `${transport}.toml`)
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        `http_transport = "${transport}"`,
        "",
        "[[backends]]",
        'name = "up"',
        `mcp = { url = "${upstreamUrl}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    const { child, match: url } = await spawnNodeUntil(
      gatewayNodeArgs(["serve", "--transport", "http", "--port", "0", "--config", config]),
      { pattern: / at (http:\/\/\S+)\n/, stream: "stderr", cwd: cliDir, env },
    )
    children.push(child)
    const client = new Client({ name: "bench", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    clients.push(client)
    return { child, client }
  }
  const sides = { baseline: await gatewayOf(baseline), candidate: await gatewayOf(candidate) }
  const call = (client: Client) => () => client.callTool({ name: "echo", arguments: { text: "hello" } })
  const results = await compareLoad(
    (side, concurrency) =>
      loadWithCpu(call(sides[side].client), {
        pid: sides[side].child.pid,
        concurrency,
        ms: settings.roundMs,
        check: (result) => {
          if ((result.content as { text?: string }[])[0]?.text !== "hello")
            throw new Error(`wrong answer: ${JSON.stringify(result)}`)
        },
      }),
    settings,
  )

  console.log(
    heading(
      `toolplane serve by HTTP transport: ${baseline} (baseline) vs ${candidate}, fronting one MCP server over HTTP`,
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(
    loadTable(results, {
      baseline: `http_transport "${baseline}"`,
      candidate: `http_transport "${candidate}"`,
    }),
  )
  console.log("\nCPU time per relayed call of the gateway process (µs, user + system, median of rounds):\n")
  console.log(cpuTable(results, { baseline, candidate }))
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await Promise.all(children.map((child) => stopProcess(child)))
  rmSync(tmp, { recursive: true, force: true })
}
