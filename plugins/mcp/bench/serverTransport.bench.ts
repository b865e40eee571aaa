/**
 * The server transport of `serveHttp`: `transport: "node"` (the lean one on node:http, baseline),
 * `transport: "raw"` (the lean one behind the raw HTTP/1.1 edge, the default) and `transport: "sdk"` (the
 * MCP SDK's StreamableHTTPServerTransport), in the same rounds: the official SDK client (this process) calls an
 * echo tool over Streamable HTTP on loopback, each server in its own process (bench/transportServer.ts),
 * at concurrency 1 and 32. Reports throughput, p50/p99, and the CPU time per call of each server process
 * alone (user + system from /proc/<pid>/stat), the figure that shows what the transport costs when the
 * client saturates the machine. Rounds interleave the sides; medians of rounds, ratios to "node" are
 * medians of per-round ratios.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench:transport` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
import { benchSettings, heading } from "@toolplane/bench-kit"
import { startEchoSides } from "./echoSides.js"
import { measureSides, sidesTables } from "./loadSides.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })

const sides = await startEchoSides("transportServer.ts", { node: "node", raw: "raw", sdk: "sdk" })
try {
  const results = await measureSides(["node", "raw", "sdk"] as const, settings, (side, concurrency) =>
    sides.echoLoad(side as "node", "demo.echo", "hello", concurrency, settings.roundMs),
  )
  console.log(
    heading(
      "serveHttp server transport: node (baseline), raw and sdk, tools/call over Streamable HTTP on loopback",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(
    sidesTables(results, { node: 'transport "node"', raw: 'transport "raw"', sdk: 'transport "sdk"' }),
  )
} finally {
  await sides.close()
}
