/**
 * The 2025 serving path's SDK underneath, same run: a bare SDK v1 server (`McpServer` +
 * `StreamableHTTPServerTransport`, what `serveHttp`'s `transport: "sdk"` and `serve.ts` build on) against
 * a bare SDK v2 server (`McpServer` + `WebStandardStreamableHTTPServerTransport` behind a `node:http` ↔
 * fetch bridge), each in its own process (bench/sdkServers.ts), one echo tool over sessions, called by
 * the SDK v1 client of this process at concurrency 1 and 32. The figure that matters is each server
 * process's CPU per call; medians of interleaved rounds, ratios to v1.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp exec tsx --conditions=@toolplane/source bench/sdkServers.bench.ts`
 * (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
import { benchSettings, heading } from "@toolplane/bench-kit"
import { startEchoSides } from "./echoSides.js"
import { measureSides, sidesTables } from "./loadSides.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const SIDES = ["v1", "v2"] as const
const sides = await startEchoSides("sdkServers.ts", { v1: "v1", v2: "v2" })
try {
  const results = await measureSides([...SIDES], settings, (side, concurrency) =>
    sides.echoLoad(side as (typeof SIDES)[number], "demo.echo", "hello", concurrency, settings.roundMs),
  )
  console.log(
    heading(
      "MCP SDK server, 2025 protocol with sessions: v1 and v2 (ratios to v1), tools/call over Streamable HTTP on loopback",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(sidesTables(results, { v1: "SDK v1 server", v2: "SDK v2 server" }))
} finally {
  await sides.close()
}
