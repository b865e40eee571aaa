/**
 * The relay fast path of `serveHttp` (node transport): a gateway whose backend is an MCP server over stdio
 * answers `tools/call` with the upstream's own result text (candidate), against the same gateway with a
 * result-copying middleware in front, which makes it encode every result again as before the fast path
 * (baseline). Two gateway processes (bench/relayGateway.ts), each with its own upstream; the SDK client
 * (this process) calls `up.echo` over Streamable HTTP on loopback with a short and a 16 KB text, at
 * concurrency 1 and 32. Reports throughput, p50/p99 and the CPU per call of each gateway process alone
 * (user + system from /proc/<pid>/stat, which includes its upstream's stdio reads but not the upstream
 * process). Rounds interleave the two sides (@toolplane/bench-kit); medians of rounds.
 *
 * Then the answer encoding alone, in this process, on results an `mcpBackend` got from the same upstream:
 * `JSON.stringify` of the whole answer (before) against splicing `resultJson`'s kept text (after), each
 * with the `Buffer.byteLength` of its content-length.
 *
 * Run: `pnpm --filter @toolplane/plugin-mcp bench:relay` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  benchSettings,
  compare,
  compareLoad,
  comparisonTable,
  cpuTable,
  heading,
  loadTable,
} from "@toolplane/bench-kit"
import { makeContext } from "@toolplane/foundation"
import { mcpBackend } from "../src/index.js"
import { resultJson } from "../src/internal/resultJson.js"
import { startEchoSides } from "./echoSides.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))

const TEXTS = [
  ["short text", "hello"],
  ["16 KB text", "0123456789abcdef".repeat(1024)],
] as const

const sides = await startEchoSides("relayGateway.ts", { baseline: "encode", candidate: "relay" })
try {
  for (const [label, text] of TEXTS) {
    const results = await compareLoad(
      (side, concurrency) => sides.echoLoad(side, "up.echo", text, concurrency, settings.roundMs),
      settings,
    )

    console.log(
      heading(
        `Relay fast path (${label}): gateway encoding results again (baseline) vs relaying the upstream's text`,
        `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
      ),
    )
    console.log(loadTable(results, { baseline: "encode again", candidate: "relay text" }))
    console.log("\nCPU time per call of the gateway process (µs, user + system, median of rounds):\n")
    console.log(cpuTable(results, { baseline: "encode again", candidate: "relay text" }))
  }
} finally {
  await sides.close()
}

// The answer encoding alone, on real relayed results.
const backend = mcpBackend(
  {
    name: "up",
    stdio: {
      command: process.execPath,
      args: [
        "--conditions=@toolplane/source",
        "--import",
        "tsx",
        join(here, "..", "test", "fixtures", "rawStdioServer.ts"),
      ],
      cwd: join(here, ".."),
    },
  },
  { requiresApproval: false },
)
try {
  await backend.connect()
  const id = 42
  let sink = 0
  for (const [label, text] of TEXTS) {
    const result = await backend.execute({ toolId: "up/echo", arguments: { text } }, makeContext())
    const encode = () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id, result: { content: result.content } })
      sink += Buffer.byteLength(body)
    }
    const splice = () => {
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson(result)}}`
      sink += Buffer.byteLength(body)
    }
    const encoding = await compare(
      [
        { name: "JSON.stringify the answer", fn: encode },
        { name: "splice resultJson's text", fn: splice },
      ],
      { rounds: settings.rounds * 3, roundMs: Math.min(settings.roundMs, 300) },
    )
    console.log(`\nAnswer encoding alone (${label}; ${settings.rounds * 3} interleaved rounds):\n`)
    console.log(comparisonTable(encoding, { baseline: encoding[0]!.name }))
  }
  if (sink === 0) console.log("")
} finally {
  await backend.close()
}
