/**
 * Gateway overhead (issue 5): the official MCP SDK client calls a trivial `echo` tool over Streamable HTTP
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
 * Both sides keep one MCP session each (the gateway's backend keeps one to the upstream). Rounds alternate
 * which side goes first; each cell reports the median of its rounds.
 *
 * Env: BENCH_CONCURRENCY (default "1,32"), BENCH_SECONDS (per cell and round, default 2), BENCH_ROUNDS (default 3), BENCH_GATEWAY_NODE_ARGS
 * (extra node flags for the gateway process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,32").split(",").map(Number)
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")

/** Spawns `node --import tsx ...` (what the `tsx` command runs, minus its wrapper process). */
const spawnTs = (args: readonly string[], nodeArgs: readonly string[] = []): ChildProcess =>
  spawn(process.execPath, [...nodeArgs, "--conditions=@toolplane/source", "--import", "tsx", ...args], {
    cwd: cliDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef" },
  })

/** Resolves with the first match of `pattern` in the child's `stream` output. */
const waitFor = (child: ChildProcess, stream: "stdout" | "stderr", pattern: RegExp, ms = 30_000) =>
  new Promise<string>((resolve, reject) => {
    let seen = ""
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${seen}`)), ms)
    child[stream]!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = pattern.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`process exited (${code}) before ${pattern}: ${seen}`))
    })
  })

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    child.kill("SIGTERM")
  })

interface Sample {
  readonly throughput: number
  readonly p50: number
  readonly p99: number
  /** CPU time per call (user + system, µs) of each process, from /proc (Linux) and process.cpuUsage. */
  readonly cpu: { readonly client: number; readonly gateway: number; readonly upstream: number }
}

/** CPU time (µs) a child process used so far; 0 where /proc is not available. */
const childCpuUs = (child: ChildProcess | undefined): number => {
  if (!child?.pid) return 0
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100 // utime + stime, in clock ticks (100 Hz)
  } catch {
    return 0
  }
}
const ownCpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

const measure = async (client: Client, concurrency: number): Promise<Sample> => {
  const call = () => client.callTool({ name: "echo", arguments: { text: "hello" } })
  const warmUntil = Date.now() + 300
  while (Date.now() < warmUntil) await Promise.all(Array.from({ length: concurrency }, call))
  const latencies: number[] = []
  const cpu0 = [ownCpuUs(), childCpuUs(gateway), childCpuUs(upstream)]
  const stopAt = performance.now() + SECONDS * 1000
  const started = performance.now()
  const worker = async () => {
    while (performance.now() < stopAt) {
      const t0 = performance.now()
      const result = await call()
      latencies.push(performance.now() - t0)
      if ((result.content as { text?: string }[])[0]?.text !== "hello")
        throw new Error(`wrong answer: ${JSON.stringify(result)}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  const n = latencies.length
  const cpu = {
    client: (ownCpuUs() - cpu0[0]!) / n,
    gateway: (childCpuUs(gateway) - cpu0[1]!) / n,
    upstream: (childCpuUs(upstream) - cpu0[2]!) / n,
  }
  latencies.sort((a, b) => a - b)
  return { throughput: n / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu }
}

const load0 = loadavg()
const upstream = spawnTs([join(here, "upstream.ts")])
upstream.stderr!.pipe(process.stderr)
let gateway: ChildProcess | undefined
const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-"))
const clients: Client[] = []
try {
  const upstreamUrl = await waitFor(upstream, "stdout", /^(http:\/\/\S+)\n/)
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
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)
  gateway = spawnTs(
    [join(cliDir, "src/main.ts"), "serve", "--transport", "http", "--port", "0", "--config", config],
    nodeArgs,
  )
  const gatewayUrl = await waitFor(gateway, "stderr", / at (http:\/\/\S+)\n/)

  const direct = await connect(upstreamUrl)
  const through = await connect(gatewayUrl)
  clients.push(direct, through)
  const results: Record<number, { direct: Sample[]; gateway: Sample[] }> = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of CONCURRENCY) {
      const slot = (results[concurrency] ??= { direct: [], gateway: [] })
      if (round % 2 === 0) {
        slot.direct.push(await measure(direct, concurrency))
        slot.gateway.push(await measure(through, concurrency))
      } else {
        slot.gateway.push(await measure(through, concurrency))
        slot.direct.push(await measure(direct, concurrency))
      }
    }
  }
  const load1 = loadavg()

  const fmt = (n: number, digits = 0) =>
    n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
  const med = (samples: readonly Sample[], key: "throughput" | "p50" | "p99") =>
    median(samples.map((s) => s[key]))
  console.log(
    `\n## Gateway overhead: MCP tools/call over Streamable HTTP on loopback (Node ${process.versions.node}, ${ROUNDS} rounds × ${SECONDS} s per cell, median of rounds)`,
  )
  console.log(
    `load average before ${load0.map((x) => x.toFixed(2)).join(" ")}, after ${load1.map((x) => x.toFixed(2)).join(" ")}\n`,
  )
  console.log(
    "| concurrency | direct calls/s | p50 ms | p99 ms | via toolplane serve calls/s | p50 ms | p99 ms | gateway ÷ direct throughput | goal |",
  )
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
  for (const concurrency of CONCURRENCY) {
    const { direct: d, gateway: g } = results[concurrency]!
    const ratios = d.map((x, i) => g[i]!.throughput / x.throughput)
    const ratio = median(ratios)
    const goal = concurrency === 1 ? 0.6 : 0.45
    console.log(
      `| ${concurrency} | ${fmt(med(d, "throughput"))} | ${fmt(med(d, "p50"), 2)} | ${fmt(med(d, "p99"), 2)} | ${fmt(med(g, "throughput"))} | ${fmt(med(g, "p50"), 2)} | ${fmt(med(g, "p99"), 2)} | ${fmt(ratio, 2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}) | >= ${goal} ${ratio >= goal ? "PASS" : "MISS"} |`,
    )
  }
  console.log(
    "\nCPU time per call (µs, user + system, median of rounds; the bench process also runs the measuring loop):\n",
  )
  console.log("| concurrency | path | client | gateway | upstream | total |")
  console.log("| --- | --- | ---: | ---: | ---: | ---: |")
  for (const concurrency of CONCURRENCY) {
    for (const path of ["direct", "gateway"] as const) {
      const samples = results[concurrency]![path]
      const c = (k: keyof Sample["cpu"]) => median(samples.map((s) => s.cpu[k]))
      console.log(
        `| ${concurrency} | ${path} | ${fmt(c("client"))} | ${path === "direct" ? "—" : fmt(c("gateway"))} | ${fmt(c("upstream"))} | ${fmt(c("client") + (path === "direct" ? 0 : c("gateway")) + c("upstream"))} |`,
      )
    }
  }
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await Promise.all([gateway ? stopChild(gateway) : undefined, stopChild(upstream)])
  rmSync(tmp, { recursive: true, force: true })
}
