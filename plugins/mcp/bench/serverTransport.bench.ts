/**
 * The server transport of `serveHttp`, `transport: "sdk"` (the MCP SDK's StreamableHTTPServerTransport,
 * baseline) against `transport: "node"` (the lean one): the official SDK client (this process) calls an
 * echo tool over Streamable HTTP on loopback, each server in its own process (bench/transportServer.ts),
 * at concurrency 1 and 32. Reports throughput, p50/p99, and the CPU time per call of each server process
 * alone (user + system from /proc/<pid>/stat), the figure that shows what the transport costs when the
 * client saturates the machine. Rounds interleave the two sides (@toolplane/bench-kit); medians of rounds.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench:transport` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
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

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))

const start = async (transport: "node" | "sdk") => {
  const { child, match } = await spawnNodeUntil(
    ["--conditions=@toolplane/source", "--import", "tsx", join(here, "transportServer.ts"), transport],
    { pattern: /^(http:\/\/\S+)\n/ },
  )
  return { child, url: match }
}

const sides = { baseline: await start("sdk"), candidate: await start("node") }
const clients = {
  baseline: new Client({ name: "bench", version: "0" }),
  candidate: new Client({ name: "bench", version: "0" }),
}
try {
  await clients.baseline.connect(new StreamableHTTPClientTransport(new URL(sides.baseline.url)))
  await clients.candidate.connect(new StreamableHTTPClientTransport(new URL(sides.candidate.url)))
  const results = await compareLoad(
    (side, concurrency) =>
      loadWithCpu(() => clients[side].callTool({ name: "demo.echo", arguments: { text: "hello" } }), {
        pid: sides[side].child.pid,
        concurrency,
        ms: settings.roundMs,
        check: (result) => {
          if ((result.content as { text?: string }[])[0]?.text !== "hello") throw new Error("wrong answer")
        },
      }),
    settings,
  )

  console.log(
    heading(
      "serveHttp server transport: sdk (baseline) vs node, tools/call over Streamable HTTP on loopback",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(loadTable(results, { baseline: 'transport: "sdk"', candidate: 'transport: "node"' }))
  console.log("\nCPU time per call of the server process (µs, user + system, median of rounds):\n")
  console.log(cpuTable(results, { baseline: "sdk", candidate: "node" }))
} finally {
  await Promise.all([clients.baseline.close(), clients.candidate.close()])
  await Promise.all(Object.values(sides).map((side) => stopProcess(side.child)))
}
