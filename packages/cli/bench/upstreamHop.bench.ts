/**
 * The upstream hop alone: `mcpBackend` in this process calls the `echo` tool of the SDK
 * upstream (`bench/upstream.ts`, its own process) over stdio and over Streamable HTTP, at concurrency 1
 * and 32, in three configurations per upstream:
 *
 * - SDK: the SDK's client transport (`transport: "sdk"` / `"fetch"`) and the SDK's zod schema for every
 *   result (`validateResults: "schema"`): closest to the hop before the relay fast path (every row sends
 *   `tools/call` past the SDK client's bookkeeping, which is not optional);
 * - SDK transport + shape check: the SDK transport with the default structural result check;
 * - Toolplane: the defaults (lean `"node"` transport, structural check, upstream text kept for relaying).
 *
 * Per case: calls/s, p50, p99 and the CPU time per call of this process (the client side of the hop:
 * transport, SDK client, result check, backend), with ratios to the SDK row from the same rounds. The
 * upstream's CPU is not counted.
 *
 * Env (bench kit): BENCH_ROUNDS (default 3), BENCH_ROUND_MS (default 1500), BENCH_CONCURRENCY ("1,32").
 */
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  benchSettings,
  closedLoop,
  fmt,
  heading,
  interleaved,
  type LoadSample,
  markdownTable,
  median,
} from "@toolplane/bench-kit"
import { makeContext } from "@toolplane/foundation"
import { type McpBackend, mcpBackend } from "@toolplane/plugin-mcp"
import { tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 3, roundMs: 1500, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))
const upstreamArgs = (...flags: string[]) => tsNode(join(here, "upstream.ts"), ...flags)

interface Sample extends LoadSample {
  readonly cpuPerCall: number
}

const cpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const measure = async (backend: McpBackend, toolId: string, concurrency: number): Promise<Sample> => {
  const ctx = makeContext()
  // CPU is read around the timed part only (closedLoop warms up first).
  let before = 0
  let calls = 0
  const sample = await closedLoop(
    () => {
      if (calls++ === 0) before = cpuUs()
      return backend.execute({ toolId, arguments: { text: "hello" }, validated: true }, ctx)
    },
    {
      concurrency,
      ms: settings.roundMs,
      warmupMs: 0,
      check: (result) => {
        if ((result.content[0] as { text?: string } | undefined)?.text !== "hello")
          throw new Error(`wrong answer: ${JSON.stringify(result)}`)
      },
    },
  )
  return { ...sample, cpuPerCall: (cpuUs() - before) / calls }
}

const upstream: ChildProcess = spawn(process.execPath, upstreamArgs("--json"), {
  stdio: ["pipe", "pipe", "inherit"],
})
const backends = new Map<string, McpBackend>()
try {
  const url = await new Promise<string>((resolve, reject) => {
    let seen = ""
    upstream.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = /^(http:\/\/\S+)\n/.exec(seen)
      if (match) resolve(match[1]!)
    })
    upstream.once("exit", (code) => reject(new Error(`upstream exited (${code})`)))
  })
  const stdio = (transport: "node" | "sdk", validateResults: "schema" | "structural") =>
    mcpBackend(
      { name: "up", stdio: { command: process.execPath, args: upstreamArgs("--stdio"), transport } },
      { requiresApproval: false, validateResults },
    )
  const http = (transport: "node" | "fetch", validateResults: "schema" | "structural") =>
    mcpBackend({ name: "up", http: { url, transport } }, { requiresApproval: false, validateResults })
  backends.set("stdio:sdk", stdio("sdk", "schema"))
  backends.set("stdio:shape", stdio("sdk", "structural"))
  backends.set("stdio:node", stdio("node", "structural"))
  backends.set("http:sdk", http("fetch", "schema"))
  backends.set("http:shape", http("fetch", "structural"))
  backends.set("http:node", http("node", "structural"))
  await Promise.all([...backends.values()].map((b) => b.connect()))
  // Warm every path up before the first timed round.
  for (const b of backends.values())
    for (let i = 0; i < 300; i++)
      await b.execute({ toolId: "up/echo", arguments: { text: "hello" }, validated: true }, makeContext())

  const cells = [...backends.keys()].flatMap((key) =>
    settings.concurrency.map((concurrency) => ({ key, concurrency })),
  )
  const samples = new Map<string, Sample[]>()
  await interleaved(settings.rounds, cells, async ({ key, concurrency }) => {
    const id = `${key}@${concurrency}`
    samples.set(id, [...(samples.get(id) ?? []), await measure(backends.get(key)!, "up/echo", concurrency)])
  })

  console.log(
    heading(
      "Upstream hop: mcpBackend → SDK upstream (echo), client side only",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; CPU is this process's user + system time per call`,
    ),
  )
  const rows: (string | number)[][] = []
  const labels: Record<string, string> = {
    sdk: "SDK transport + SDK schema",
    shape: "SDK transport + shape check",
    node: "Toolplane (lean transport + shape check)",
  }
  for (const kind of ["stdio", "http"] as const) {
    const sdk = `${kind}:sdk`
    for (const concurrency of settings.concurrency) {
      const base = samples.get(`${sdk}@${concurrency}`)!
      for (const key of [sdk, `${kind}:shape`, `${kind}:node`]) {
        const mine = samples.get(`${key}@${concurrency}`)!
        const cpuRatios = mine.map((s, i) => s.cpuPerCall / base[i]!.cpuPerCall)
        const tputRatios = mine.map((s, i) => s.throughput / base[i]!.throughput)
        rows.push([
          kind === "stdio" ? "stdio" : "Streamable HTTP",
          labels[key.split(":")[1]!]!,
          concurrency,
          fmt(median(mine.map((s) => s.throughput))),
          fmt(median(mine.map((s) => s.p50)), 3),
          fmt(median(mine.map((s) => s.p99)), 3),
          fmt(median(mine.map((s) => s.cpuPerCall)), 1),
          key === sdk ? "1.00" : fmt(median(cpuRatios), 2),
          key === sdk ? "1.00" : fmt(median(tputRatios), 2),
        ])
      }
    }
  }
  console.log(
    markdownTable(
      [
        "upstream",
        "client side",
        "c",
        "calls/s",
        "p50 ms",
        "p99 ms",
        "CPU µs/call",
        "CPU ÷ SDK",
        "calls/s ÷ SDK",
      ],
      rows,
      [2, 3, 4, 5, 6, 7, 8],
    ),
  )
} finally {
  await Promise.all([...backends.values()].map((b) => b.close().catch(() => {})))
  upstream.kill("SIGTERM")
}
