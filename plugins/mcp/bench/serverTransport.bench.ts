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
import { benchSettings, compareLoad, cpuTable, heading, loadTable } from "@toolplane/bench-kit"
import { startEchoSides } from "./echoSides.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })

const sides = await startEchoSides("transportServer.ts", { baseline: "sdk", candidate: "node" })
try {
  const results = await compareLoad(
    (side, concurrency) => sides.echoLoad(side, "demo.echo", "hello", concurrency, settings.roundMs),
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
  await sides.close()
}
