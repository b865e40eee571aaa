/**
 * Gateway overhead: the official MCP SDK client calls a trivial `echo` tool over Streamable HTTP
 * on loopback (a) on an MCP server directly and (b) through `toolplane serve` fronting that server, at
 * concurrency 1 and 32. Prints throughput and p50/p99 latency of both and the ratio gateway ÷ direct.
 *
 * Topology: three processes, so client, gateway and server do not share one event loop —
 *
 *   bench (SDK Client) ──HTTP──▶ upstream (bench/upstream.ts: SDK McpServer, own process)      (a) direct
 *   bench (SDK Client) ──HTTP──▶ `toolplane serve --transport http` (own process, the real CLI:
 *                                 config → mcpBackend(http) → exec runner → gatewayStack → serveHttp)
 *                                 ──HTTP──▶ the same upstream                                    (b) gateway
 *
 * Both sides keep one MCP session each (the gateway's backend keeps one to the upstream). Rounds
 * interleave the two sides, rotating which goes first (@toolplane/bench-kit); each cell reports the median
 * of its rounds.
 *
 * Env: BENCH_CONCURRENCY (default "1,32"), BENCH_ROUND_MS (per cell and round, default 2000), BENCH_ROUNDS
 * (default 3), BENCH_GATEWAY_NODE_ARGS (extra node flags for the gateway process, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_GATEWAY_BUILD ("source", default, or "dist"; see
 * gatewayCommand.ts).
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
  closedLoop,
  compareLoad,
  fmt,
  heading,
  type LoadSample,
  loadTable,
  markdownTable,
  median,
  processCpuUs,
  spawnNodeUntil,
  stopProcess,
} from "@toolplane/bench-kit"
import { gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const CONCURRENCY = settings.concurrency
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")

const env = { TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef" }

interface Sample extends LoadSample {
  /** CPU time per call (user + system, µs) of each process, from /proc (Linux) and process.cpuUsage. */
  readonly cpu: { readonly client: number; readonly gateway: number; readonly upstream: number }
}

/** CPU time (µs) a child process used so far; 0 where /proc is not available. */
const childCpuUs = (child: ChildProcess | undefined): number => processCpuUs(child?.pid) ?? 0
const ownCpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

const measure = async (client: Client, concurrency: number): Promise<Sample> => {
  const call = () => client.callTool({ name: "echo", arguments: { text: "hello" } })
  // Warm-up outside the measured window (and its CPU).
  await closedLoop(call, { concurrency, ms: 300, warmupMs: 0 })
  const cpu0 = [ownCpuUs(), childCpuUs(gateway), childCpuUs(upstream)]
  const sample = await closedLoop(call, {
    concurrency,
    ms: settings.roundMs,
    warmupMs: 0,
    check: (result) => {
      if ((result.content as { text?: string }[])[0]?.text !== "hello")
        throw new Error(`wrong answer: ${JSON.stringify(result)}`)
    },
  })
  const n = sample.calls
  const cpu = {
    client: (ownCpuUs() - cpu0[0]!) / n,
    gateway: (childCpuUs(gateway) - cpu0[1]!) / n,
    upstream: (childCpuUs(upstream) - cpu0[2]!) / n,
  }
  return { ...sample, cpu }
}

const started = await spawnNodeUntil(tsNode(join(here, "upstream.ts")), {
  pattern: /^(http:\/\/\S+)\n/,
  cwd: cliDir,
  env,
})
const upstream = started.child
let gateway: ChildProcess | undefined
const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-"))
const clients: Client[] = []
try {
  const upstreamUrl = started.match
  const config = join(tmp, "toolplane.toml")
  writeFileSync(
    config,
    [
      "[server]",
      'name = "bench-gateway"',
      'tool_names = "name"',
      "",
      "[[backends]]",
      'name = "up"',
      `mcp = { url = "${upstreamUrl}" }`,
      "require_approval = false",
      "",
    ].join("\n"),
  )
  const served = await spawnNodeUntil(
    gatewayNodeArgs(["serve", "--transport", "http", "--port", "0", "--config", config]),
    { pattern: / at (http:\/\/\S+)\n/, stream: "stderr", cwd: cliDir, env },
  )
  gateway = served.child
  const gatewayUrl = served.match

  const direct = await connect(upstreamUrl)
  const through = await connect(gatewayUrl)
  clients.push(direct, through)
  const results = await compareLoad(
    (side, concurrency) => measure(side === "baseline" ? direct : through, concurrency),
    settings,
  )

  console.log(
    heading(
      "Gateway overhead: MCP tools/call over Streamable HTTP on loopback",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(
    loadTable(results, { baseline: "direct", candidate: "via toolplane serve" }, (concurrency) => ({
      min: concurrency === 1 ? 0.6 : 0.45,
    })),
  )
  console.log(
    "\nCPU time per call (µs, user + system, median of rounds; the bench process also runs the measuring loop):\n",
  )
  console.log(
    markdownTable(
      ["concurrency", "path", "client", "gateway", "upstream", "total"],
      CONCURRENCY.flatMap((concurrency) =>
        (["direct", "gateway"] as const).map((path) => {
          const samples = results.get(concurrency)![path === "direct" ? "baseline" : "candidate"]
          const c = (k: keyof Sample["cpu"]) => median(samples.map((s) => s.cpu[k]))
          return [
            concurrency,
            path,
            fmt(c("client")),
            path === "direct" ? "—" : fmt(c("gateway")),
            fmt(c("upstream")),
            fmt(c("client") + (path === "direct" ? 0 : c("gateway")) + c("upstream")),
          ]
        }),
      ),
      [2, 3, 4, 5],
    ),
  )
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await Promise.all([gateway ? stopProcess(gateway) : undefined, stopProcess(upstream)])
  rmSync(tmp, { recursive: true, force: true })
}
