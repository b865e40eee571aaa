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
import { type ChildProcess, spawn } from "node:child_process"
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
} from "@toolplane/bench-kit"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))

/** CPU time (µs) a process used so far, or NaN without /proc. */
const cpuUs = (pid: number): number => processCpuUs(pid) ?? Number.NaN

const start = (transport: "node" | "sdk") =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@toolplane/source", "--import", "tsx", join(here, "transportServer.ts"), transport],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const match = /^(http:\/\/\S+)\n/.exec(out)
      if (match) resolve({ child, url: match[1]! })
    })
    child.once("exit", (code) => reject(new Error(`server (${transport}) exited with ${code}`)))
  })

interface Sample extends LoadSample {
  /** CPU per call of the server process, µs. */
  readonly serverCpu: number
}

const sides = { baseline: await start("sdk"), candidate: await start("node") }
const clients = {
  baseline: new Client({ name: "bench", version: "0" }),
  candidate: new Client({ name: "bench", version: "0" }),
}
try {
  await clients.baseline.connect(new StreamableHTTPClientTransport(new URL(sides.baseline.url)))
  await clients.candidate.connect(new StreamableHTTPClientTransport(new URL(sides.candidate.url)))
  const results = await compareLoad(async (side, concurrency): Promise<Sample> => {
    const pid = sides[side].child.pid!
    const client = clients[side]
    // Warm-up outside the measured window (and its CPU).
    await closedLoop(() => client.callTool({ name: "demo.echo", arguments: { text: "hello" } }), {
      concurrency,
      ms: 300,
    })
    const before = cpuUs(pid)
    const sample = await closedLoop(
      () => client.callTool({ name: "demo.echo", arguments: { text: "hello" } }),
      {
        concurrency,
        ms: settings.roundMs,
        check: (result) => {
          if ((result.content as { text?: string }[])[0]?.text !== "hello") throw new Error("wrong answer")
        },
      },
    )
    return { ...sample, serverCpu: (cpuUs(pid) - before) / sample.calls }
  }, settings)

  console.log(
    heading(
      "serveHttp server transport: sdk (baseline) vs node, tools/call over Streamable HTTP on loopback",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(loadTable(results, { baseline: 'transport: "sdk"', candidate: 'transport: "node"' }))
  console.log("\nCPU time per call of the server process (µs, user + system, median of rounds):\n")
  console.log(
    markdownTable(
      ["concurrency", "sdk", "node", "node ÷ sdk"],
      settings.concurrency.map((c) => {
        const r = results.get(c)!
        const sdk = median(r.baseline.map((s) => s.serverCpu))
        const node = median(r.candidate.map((s) => s.serverCpu))
        return [c, fmt(sdk), fmt(node), fmt(node / sdk, 2)]
      }),
    ),
  )
} finally {
  await Promise.all([clients.baseline.close(), clients.candidate.close()])
  for (const side of Object.values(sides)) side.child.kill("SIGTERM")
}
