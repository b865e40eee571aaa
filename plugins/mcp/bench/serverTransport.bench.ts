/**
 * The server transport of `serveHttp`: `transport: "node"` (the lean one on node:http, baseline),
 * `transport: "raw"` (the lean one behind the raw HTTP/1.1 edge, opt-in) and `transport: "sdk"` (the
 * MCP SDK's StreamableHTTPServerTransport), in the same rounds: the official SDK client (this process) calls an
 * echo tool over Streamable HTTP on loopback, each server in its own process (bench/transportServer.ts),
 * at concurrency 1 and 32. Reports throughput, p50/p99, and the CPU time per call of each server process
 * alone (user + system from /proc/<pid>/stat), the figure that shows what the transport costs when the
 * client saturates the machine. Rounds interleave the sides; medians of rounds, ratios to "node" are
 * medians of per-round ratios.
 *
 * With `BENCH_BASE_CHECKOUT=<another checkout>` (e.g. a `git worktree` of `main`, `pnpm install` done), the
 * sides default to `raw-base,raw`: `raw-base` is that checkout's own server script and source, in the same
 * interleaved rounds (BENCH_TRANSPORT_SIDES picks others, e.g. `raw-base,raw,node`).
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench:transport` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY,
 * BENCH_TRANSPORT_SIDES, BENCH_BASE_CHECKOUT).
 */
import { benchSettings, heading } from "@toolplane/bench-kit"
import { startEchoSides } from "./echoSides.js"
import { measureSides, sidesTables } from "./loadSides.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const baseCheckout = process.env.BENCH_BASE_CHECKOUT
type Side = "node" | "raw" | "sdk" | "raw-base" | "node-base"
const ARGS: Record<Side, string> = {
  node: "node",
  raw: "raw",
  sdk: "sdk",
  "raw-base": "raw",
  "node-base": "node",
}
const SIDES = (process.env.BENCH_TRANSPORT_SIDES ?? (baseCheckout ? "raw-base,raw" : "node,raw,sdk")).split(
  ",",
) as Side[]
const LABELS: Record<Side, string> = {
  node: 'transport "node"',
  raw: 'transport "raw"',
  sdk: 'transport "sdk"',
  "raw-base": 'transport "raw" (base checkout)',
  "node-base": 'transport "node" (base checkout)',
}

const sides = await startEchoSides(
  "transportServer.ts",
  Object.fromEntries(SIDES.map((side) => [side, ARGS[side]])) as Record<Side, string>,
  baseCheckout
    ? Object.fromEntries(SIDES.filter((side) => side.endsWith("-base")).map((side) => [side, baseCheckout]))
    : {},
)
try {
  const results = await measureSides(SIDES, settings, (side, concurrency) =>
    sides.echoLoad(side as Side, "demo.echo", "hello", concurrency, settings.roundMs),
  )
  console.log(
    heading(
      `serveHttp server transport: ${SIDES.join(", ")} (ratios to the first), tools/call over Streamable HTTP on loopback`,
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(sidesTables(results, LABELS))
} finally {
  await sides.close()
}
