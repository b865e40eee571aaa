/**
 * Gateway versus peers: the official MCP SDK client makes one `echo` tool call per request
 * through each MCP gateway users pick, all fronting the same SDK upstream (`bench/upstream.ts`), once over
 * HTTP and once over stdio, at concurrency 1 and 32, in one run of interleaved rounds. Per case it prints
 * calls/s, p50, p99, throughput ÷ direct (median of per-round ratios) and the CPU time per call of the
 * gateway process alone (utime + stime from `/proc/<pid>/stat`, children excluded), measured after a
 * warm-up outside the window (bench kit's `loadWithCpu`).
 *
 * Contenders (one SDK client session each; every process listens on 127.0.0.1 where it lets us choose):
 *
 * - direct: the SDK upstream served directly over Streamable HTTP with JSON answers — the baseline of
 *   every ratio, in both sections. Its CPU column is the server itself.
 * - direct (stdio): the SDK client talking stdio to the upstream (stdio section, for reference).
 * - floors (`floorRelay.ts`, plain node): what the cheapest relay costs on this machine in the same rounds,
 *   so a gateway's CPU can be read as "CPU above floor". "floor: layer-4 relay" (`floor-http`) pairs each
 *   client connection with its own upstream connection and pipes bytes; "floor: minimal stdio relay"
 *   (`floor-stdio`) frames HTTP/1.1 by hand and matches answers by JSON-RPC id. Not products: minimal on
 *   purpose.
 * - toolplane serve: the real CLI, `serve --transport http`, config fronting the upstream.
 * - mcp-hub: serves the older HTTP+SSE transport at `/mcp` (the SDK's SSE client transport), names tools
 *   `up__echo`, listens on all interfaces; HOME/XDG folders point at a temporary directory whose
 *   marketplace cache is pre-filled so it does not try to download its registry.
 * - supergateway (stdio upstreams only: it has no HTTP→HTTP mode): stdio → Streamable HTTP,
 *   `--stateful` (one upstream process per session; one session here), `--logLevel none`.
 * - mcp-proxy (stdio upstreams only: it spawns a command), `--server stream`, with its default event
 *   store and with `--no-eventStore`.
 *
 * A contender that fails to start is listed with the reason instead of numbers.
 *
 * A contender that fails during a round (a call errs or takes over 30 s) is dropped from the remaining
 * rounds and listed with the reason; the others go on. After the tables, the issue's goals are checked
 * against this run's numbers, next to the floors' own CPU and each contender's CPU above its floor.
 *
 * Warm-up: before the first round every contender makes BENCH_WARMUP_CALLS calls (default 20,000; 0 turns
 * it off) at the run's highest concurrency, in chunks of 5,000 interleaved across contenders, and a table
 * shows each contender's CPU per call per chunk next to its measured value. Without it a process still
 * JIT-compiling is charged for that: in one run, three copies of toolplane serve (stdio upstream) warmed
 * with 0 / 5,000 / 20,000 calls then spent 390 / 310 / 239 µs per call at c=1 in the same rounds (mcp-hub
 * 586 / 537 / 447). Each cell also runs 300 ms outside its measured window (loadWithCpu) as before.
 *
 * Env (bench kit): BENCH_ROUNDS (default 3), BENCH_ROUND_MS (per cell and round, default 1500),
 * BENCH_CONCURRENCY (default "1,32"), BENCH_WARMUP_CALLS (default 20000); BENCH_BASE_CLI (the
 * `packages/cli` folder of a second, built checkout, e.g. of `main`: its `toolplane serve` runs too, as
 * "toolplane serve (base)", for a before/after in one run; its node flags come from BENCH_BASE_NODE_ARGS,
 * else BENCH_GATEWAY_NODE_ARGS); BENCH_PEERS_ONLY (comma-separated contender keys, e.g.
 * "direct,floor-http,floor-stdio,toolplane-http,toolplane-stdio,mcp-hub-http,mcp-hub-stdio"; default all;
 * direct always runs); BENCH_GATEWAY_NODE_ARGS (extra node flags for the toolplane
 * processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"); BENCH_GATEWAY_BUILD ("source", default, or
 * "dist" after `pnpm build`; see gatewayCommand.ts).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  benchSettings,
  type CallsCpuSample,
  type CpuLoadSample,
  callsWithCpu,
  fmt,
  heading,
  interleaved,
  loadWithCpu,
  markdownTable,
  median,
  stopProcess,
} from "@toolplane/bench-kit"
import { gatewayBuild, gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 3, roundMs: 1500, concurrency: [1, 32], warmupCalls: 20_000 })
/** Warm-up calls are made in chunks of this many, interleaved across contenders. */
const WARMUP_CHUNK = 5_000
const only = process.env.BENCH_PEERS_ONLY?.split(",").map((s) => s.trim())
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")
const tmp = mkdtempSync(join(tmpdir(), "toolplane-peers-"))

const upstreamFile = join(here, "upstream.ts")
const floorFile = join(here, "floorRelay.ts")
/** The stdio upstream every stdio contender spawns. */
const stdioUpstream = { command: process.execPath, args: tsNode(upstreamFile, "--stdio") }
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

const children: ChildProcess[] = []
const spawnChild = (command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) => {
  const child = spawn(command, args, {
    cwd: cliDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef", ...env },
  })
  let tail = ""
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-2000)
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  children.push(child)
  return { child, output: () => tail }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Polls `url` until the process answers any HTTP status; fails with its output if it exits first. */
const waitHttp = async (url: string, proc: { child: ChildProcess; output: () => string }, ms = 60_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (proc.child.exitCode !== null)
      throw new Error(`exited (${proc.child.exitCode}): ${proc.output().trim()}`)
    try {
      const res = await fetch(url, { method: "GET", signal: AbortSignal.timeout(500) })
      await res.body?.cancel().catch(() => {})
      return
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new Error(`not answering at ${url} after ${ms} ms: ${proc.output().trim()}`)
}

interface Running {
  readonly client: Client
  /** The tool name the contender exposes for the upstream's `echo`. */
  readonly tool: string
  /** The process whose CPU time is charged (the gateway; for direct cases, the server itself). */
  readonly cpuPid: number | undefined
}

const connectClient = async (transport: Transport): Promise<Omit<Running, "cpuPid">> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const { tools } = await client.listTools()
  const tool = tools.find((t) => t.name === "echo" || t.name.endsWith("echo"))?.name
  if (!tool) throw new Error(`no echo tool among ${tools.map((t) => t.name).join(", ")}`)
  return { client, tool }
}
const httpClient = (url: string) => connectClient(new StreamableHTTPClientTransport(new URL(url)))

interface Contender {
  readonly key: string
  readonly label: string
  readonly upstream: "http" | "stdio"
  readonly start: (upstreamUrl: string) => Promise<Running>
}

/** The URL a process prints on stderr as `… at http://…` (toolplane serve, the floors). */
const urlOnStderr = (proc: { child: ChildProcess; output: () => string }) =>
  new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after 60 s: ${proc.output()}`)), 60_000)
    const look = () => {
      const match = / at (http:\/\/\S+)\n/.exec(proc.output())
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    proc.child.stderr!.on("data", look)
    proc.child.once("exit", (code) => reject(new Error(`exited (${code}): ${proc.output()}`)))
  })

const baseCli = process.env.BENCH_BASE_CLI
const toolplane =
  (upstream: "http" | "stdio", base = false) =>
  async (upstreamUrl: string): Promise<Running> => {
    const config = join(tmp, `toolplane-${upstream}${base ? "-base" : ""}.toml`)
    const mcp =
      upstream === "http"
        ? `{ url = ${JSON.stringify(upstreamUrl)} }`
        : `{ command = ${JSON.stringify(stdioUpstream.command)}, args = ${JSON.stringify(stdioUpstream.args)} }`
    writeFileSync(
      config,
      `[server]\nname = "bench-gateway"\ntool_names = "name"\n\n[[backends]]\nname = "up"\nmcp = ${mcp}\nrequire_approval = false\n`,
    )
    const args = ["serve", "--transport", "http", "--port", "0", "--config", config]
    const proc = spawnChild(
      process.execPath,
      base
        ? [
            ...(process.env.BENCH_BASE_NODE_ARGS ?? process.env.BENCH_GATEWAY_NODE_ARGS ?? "")
              .split(/\s+/)
              .filter(Boolean),
            join(baseCli!, "bin", "toolplane.js"),
            ...args,
          ]
        : gatewayNodeArgs(args),
    )
    return { ...(await httpClient(await urlOnStderr(proc))), cpuPid: proc.child.pid }
  }

/** A floor relay (`floorRelay.ts`, plain node: type stripping, no loader) fronting the upstream. */
const floor =
  (upstream: "http" | "stdio") =>
  async (upstreamUrl: string): Promise<Running> => {
    const proc = spawnChild(process.execPath, [
      floorFile,
      ...(upstream === "http"
        ? ["--http", upstreamUrl]
        : ["--stdio", stdioUpstream.command, ...stdioUpstream.args]),
    ])
    return { ...(await httpClient(await urlOnStderr(proc))), cpuPid: proc.child.pid }
  }

const mcpHub =
  (upstream: "http" | "stdio") =>
  async (upstreamUrl: string): Promise<Running> => {
    const home = join(tmp, `mcp-hub-${upstream}`)
    const data = join(home, "data")
    mkdirSync(join(data, "mcp-hub", "cache"), { recursive: true })
    // A fresh, non-empty marketplace cache: mcp-hub then skips its registry download (no network here).
    writeFileSync(
      join(data, "mcp-hub", "cache", "registry.json"),
      JSON.stringify({
        registry: {
          version: "bench",
          generatedAt: Date.now(),
          totalServers: 1,
          servers: [{ id: "none", name: "none", description: "", tags: [], url: "" }],
        },
        lastFetchedAt: Date.now(),
        serverDocumentation: {},
      }),
    )
    const config = join(home, "mcp-hub.json")
    const server = upstream === "http" ? { url: upstreamUrl } : stdioUpstream
    writeFileSync(config, JSON.stringify({ mcpServers: { up: server } }))
    const port = await freePort()
    const pkg = join(cliDir, "node_modules", "mcp-hub")
    const proc = spawnChild(
      process.execPath,
      [join(pkg, "dist", "cli.js"), "--port", String(port), "--config", config],
      {
        HOME: home,
        XDG_DATA_HOME: data,
        XDG_STATE_HOME: join(home, "state"),
        XDG_CONFIG_HOME: join(home, "config"),
      },
    )
    const url = `http://127.0.0.1:${port}/mcp`
    await waitHttp(`http://127.0.0.1:${port}/api/health`, proc)
    // The hub connects to its servers in the background: retry until the prefixed tool shows up.
    const until = Date.now() + 60_000
    for (;;) {
      try {
        return { ...(await connectClient(new SSEClientTransport(new URL(url)))), cpuPid: proc.child.pid }
      } catch (error) {
        if (Date.now() > until || proc.child.exitCode !== null)
          throw new Error(`${(error as Error).message}; output: ${proc.output().trim().slice(-400)}`)
        await new Promise((r) => setTimeout(r, 500))
      }
    }
  }

const binOf = (name: string): string => {
  const dir = join(cliDir, "node_modules", name)
  const { bin } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    bin: string | Record<string, string>
  }
  return join(dir, typeof bin === "string" ? bin : bin[name]!)
}

const supergateway = async (): Promise<Running> => {
  const port = await freePort()
  const command = [stdioUpstream.command, ...stdioUpstream.args].map(shellQuote).join(" ")
  const proc = spawnChild(process.execPath, [
    binOf("supergateway"),
    "--stdio",
    command,
    "--outputTransport",
    "streamableHttp",
    "--stateful",
    "--port",
    String(port),
    "--logLevel",
    "none",
  ])
  const url = `http://127.0.0.1:${port}/mcp`
  await waitHttp(url, proc)
  return { ...(await httpClient(url)), cpuPid: proc.child.pid }
}

const mcpProxy = (eventStore: boolean) => async (): Promise<Running> => {
  const port = await freePort()
  const proc = spawnChild(process.execPath, [
    binOf("mcp-proxy"),
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--server",
    "stream",
    ...(eventStore ? [] : ["--no-eventStore"]),
    "--",
    stdioUpstream.command,
    ...stdioUpstream.args,
  ])
  const url = `http://127.0.0.1:${port}/mcp`
  await waitHttp(url, proc)
  return { ...(await httpClient(url)), cpuPid: proc.child.pid }
}

let upstreamPid: number | undefined
const contenders: Contender[] = [
  {
    key: "direct",
    label: "direct (SDK server, JSON answers)",
    upstream: "http",
    start: async (url) => ({ ...(await httpClient(url)), cpuPid: upstreamPid }),
  },
  { key: "floor-http", label: "floor: layer-4 relay", upstream: "http", start: floor("http") },
  { key: "toolplane-http", label: "toolplane serve", upstream: "http", start: toolplane("http") },
  ...(baseCli
    ? [
        {
          key: "toolplane-base-http",
          label: "toolplane serve (base)",
          upstream: "http" as const,
          start: toolplane("http", true),
        },
      ]
    : []),
  { key: "mcp-hub-http", label: "mcp-hub", upstream: "http", start: mcpHub("http") },
  {
    key: "direct-stdio",
    label: "direct over stdio (SDK client → stdio server)",
    upstream: "stdio",
    start: async () => {
      const transport = new StdioClientTransport({ ...stdioUpstream, cwd: cliDir, stderr: "inherit" })
      const running = await connectClient(transport)
      return { ...running, cpuPid: transport.pid ?? undefined }
    },
  },
  { key: "floor-stdio", label: "floor: minimal stdio relay", upstream: "stdio", start: floor("stdio") },
  { key: "toolplane-stdio", label: "toolplane serve", upstream: "stdio", start: toolplane("stdio") },
  ...(baseCli
    ? [
        {
          key: "toolplane-base-stdio",
          label: "toolplane serve (base)",
          upstream: "stdio" as const,
          start: toolplane("stdio", true),
        },
      ]
    : []),
  { key: "mcp-hub-stdio", label: "mcp-hub", upstream: "stdio", start: mcpHub("stdio") },
  { key: "supergateway-stdio", label: "supergateway --stateful", upstream: "stdio", start: supergateway },
  { key: "mcp-proxy-stdio", label: "mcp-proxy (event store)", upstream: "stdio", start: mcpProxy(true) },
  {
    key: "mcp-proxy-nostore-stdio",
    label: "mcp-proxy --no-eventStore",
    upstream: "stdio",
    start: mcpProxy(false),
  },
]

type Sample = CpuLoadSample

const echo = (run: Running) => () =>
  run.client.callTool({ name: run.tool, arguments: { text: "hello" } }, undefined, { timeout: 30_000 })
const checkEcho = (result: Awaited<ReturnType<ReturnType<typeof echo>>>) => {
  if ((result.content as { text?: string }[])[0]?.text !== "hello")
    throw new Error(`wrong answer: ${JSON.stringify(result)}`)
}

/** One cell: warm-up outside the measured window, then calls/s, latency and the charged process's CPU per call. */
const measure = (run: Running, concurrency: number): Promise<Sample> =>
  loadWithCpu(echo(run), { pid: run.cpuPid, concurrency, ms: settings.roundMs, check: checkEcho })

/** The steady-state warm-up's concurrency: the run's highest (fastest; exercises the concurrent paths too). */
const warmupConcurrency = Math.max(...settings.concurrency)

/** One chunk of a contender's warm-up: `calls` calls and the CPU its process spent per call. */
const warmUp = (run: Running, calls: number): Promise<CallsCpuSample> =>
  callsWithCpu(echo(run), { pid: run.cpuPid, calls, concurrency: warmupConcurrency, check: checkEcho })

/** The floor of a contender's section: `floor-http` or `floor-stdio`. */
const floorOf = (key: string) =>
  `floor-${contenders.find((c) => c.key === key)?.upstream ?? (key.endsWith("stdio") ? "stdio" : "http")}`

/**
 * A contender's CPU per call above its section's floor at one concurrency: per round, its CPU minus the
 * floor's in the same round, then the median. Undefined when either was not measured.
 */
const aboveFloor = (key: string, concurrency: number): number | undefined => {
  const mine = samples.get(`${key}@${concurrency}`)
  const floorKey = floorOf(key)
  const base = samples.get(`${floorKey}@${concurrency}`)
  if (!mine || !base || failed.has(key) || failed.has(floorKey)) return undefined
  const diff = median(mine.map((s, i) => s.cpuPerCall - base[i]!.cpuPerCall))
  return Number.isNaN(diff) ? undefined : diff
}

/** Per contender and concurrency: median calls/s, median ratio to direct, median gateway CPU per call. */
const summary = (key: string, concurrency: number) => {
  const mine = samples.get(`${key}@${concurrency}`)
  const base = samples.get(`direct@${concurrency}`)
  if (!mine || !base || failed.has(key)) return undefined
  return {
    throughput: median(mine.map((s) => s.throughput)),
    ratio: median(mine.map((s, i) => s.throughput / base[i]!.throughput)),
    cpu: median(mine.map((s) => s.cpuPerCall)),
    aboveFloor: aboveFloor(key, concurrency),
  }
}

/** The issue's goals, checked against this run. */
const goals = (): (string | number)[][] => {
  const rows: (string | number)[][] = []
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "not measured" : ok ? "met" : "missed")
  const cpuCells: string[] = []
  let cpuOk: boolean | undefined
  for (const upstreamKind of ["http", "stdio"] as const)
    for (const concurrency of settings.concurrency) {
      const s = summary(`toolplane-${upstreamKind}`, concurrency)
      if (!s) continue
      cpuCells.push(`${upstreamKind} c=${concurrency}: ${fmt(s.cpu)} µs`)
      cpuOk = (cpuOk ?? true) && s.cpu <= 150
    }
  rows.push(["gateway CPU per call ≤ 150 µs (c=1 and c=32)", cpuCells.join("; ") || "—", verdict(cpuOk)])
  for (const [upstreamKind, min] of [
    ["stdio", 0.9],
    ["http", 0.8],
  ] as const) {
    const s = summary(`toolplane-${upstreamKind}`, 1)
    rows.push([
      `throughput ≥ ${min} of direct at c=1, ${upstreamKind} upstream`,
      s ? fmt(s.ratio, 2) : "—",
      verdict(s ? s.ratio >= min : undefined),
    ])
  }
  const behind: string[] = []
  let compared = false
  for (const upstreamKind of ["http", "stdio"] as const)
    for (const concurrency of settings.concurrency) {
      const ours = summary(`toolplane-${upstreamKind}`, concurrency)
      if (!ours) continue
      for (const c of contenders) {
        if (
          c.upstream !== upstreamKind ||
          c.key.startsWith("direct") ||
          c.key.startsWith("toolplane") ||
          c.key.startsWith("floor")
        )
          continue
        const peer = summary(c.key, concurrency)
        if (!peer) continue
        compared = true
        if (peer.throughput >= ours.throughput)
          behind.push(
            `${c.label} (${upstreamKind}, c=${concurrency}) calls/s ${fmt(peer.throughput)} ≥ ${fmt(ours.throughput)}`,
          )
        if (peer.cpu <= ours.cpu)
          behind.push(
            `${c.label} (${upstreamKind}, c=${concurrency}) CPU ${fmt(peer.cpu)} ≤ ${fmt(ours.cpu)} µs`,
          )
      }
    }
  rows.push([
    "ahead of every peer on calls/s and gateway CPU per call",
    compared ? (behind.length === 0 ? "ahead in every case" : `behind: ${behind.join("; ")}`) : "—",
    verdict(compared ? behind.length === 0 : undefined),
  ])
  // Against the floors: what a bare relay costs here, and what each contender spends above it.
  const floorCells: string[] = []
  for (const upstreamKind of ["http", "stdio"] as const)
    for (const concurrency of settings.concurrency) {
      const f = summary(`floor-${upstreamKind}`, concurrency)
      if (!f || Number.isNaN(f.cpu)) continue
      floorCells.push(
        `${upstreamKind} c=${concurrency}: ${fmt(f.cpu)} µs (${f.cpu >= 150 ? "at or above 150" : `150 leaves ${fmt(150 - f.cpu)} above it`})`,
      )
    }
  rows.push([
    "reference, not a goal: the floor's own CPU per call (a bare relay on this machine, same rounds)",
    floorCells.join("; ") || "— (floors not run)",
    floorCells.length ? "reference" : "not measured",
  ])
  const aboveCells: string[] = []
  const behindAbove: string[] = []
  for (const upstreamKind of ["http", "stdio"] as const)
    for (const concurrency of settings.concurrency) {
      const ours = summary(`toolplane-${upstreamKind}`, concurrency)?.aboveFloor
      if (ours === undefined) continue
      const peers = contenders
        .filter(
          (c) =>
            c.upstream === upstreamKind &&
            !c.key.startsWith("direct") &&
            !c.key.startsWith("toolplane") &&
            !c.key.startsWith("floor"),
        )
        .flatMap((c) => {
          const above = summary(c.key, concurrency)?.aboveFloor
          return above === undefined ? [] : [{ label: c.label, above }]
        })
      if (peers.length === 0) continue
      aboveCells.push(
        `${upstreamKind} c=${concurrency}: toolplane ${fmt(ours)}; ${peers.map((p) => `${p.label} ${fmt(p.above)}`).join(", ")}`,
      )
      for (const p of peers)
        if (p.above <= ours) behindAbove.push(`${p.label} (${upstreamKind}, c=${concurrency})`)
    }
  rows.push([
    "toolplane's CPU above floor below every peer's (µs/call)",
    aboveCells.length
      ? `${aboveCells.join("; ")}${behindAbove.length ? `; not below: ${behindAbove.join(", ")}` : ""}`
      : "—",
    verdict(aboveCells.length ? behindAbove.length === 0 : undefined),
  ])
  return rows
}

const started = performance.now()
const log = (line: string) =>
  process.stderr.write(`peers bench [${fmt((performance.now() - started) / 1000, 1)} s]: ${line}\n`)
const upstream = spawnChild(process.execPath, tsNode(upstreamFile, "--json"))
const running = new Map<string, Running>()
const failed = new Map<string, string>()
const samples = new Map<string, Sample[]>()
/** Per contender, its warm-up chunks in order. */
const warmups = new Map<string, CallsCpuSample[]>()
try {
  const upstreamUrl = await new Promise<string>((resolve, reject) => {
    upstream.child.stdout!.on("data", () => {
      const match = /^(http:\/\/\S+)\n/.exec(upstream.output())
      if (match) resolve(match[1]!)
    })
    upstream.child.once("exit", (code) =>
      reject(new Error(`upstream exited (${code}): ${upstream.output()}`)),
    )
  })
  upstreamPid = upstream.child.pid
  for (const c of contenders) {
    if (only && !only.includes(c.key) && c.key !== "direct") continue
    const t0 = performance.now()
    try {
      running.set(c.key, await c.start(upstreamUrl))
      log(`${c.key} started in ${fmt(performance.now() - t0)} ms`)
    } catch (error) {
      failed.set(c.key, (error as Error).message.replace(/\s+/g, " ").slice(0, 300))
      process.stderr.write(`peers bench: ${c.key} could not start: ${(error as Error).message}\n`)
    }
  }
  if (!running.has("direct")) throw new Error(`the direct baseline did not start: ${failed.get("direct")}`)

  if (settings.warmupCalls > 0) {
    const chunks = Math.ceil(settings.warmupCalls / WARMUP_CHUNK)
    log(
      `warm-up: ${settings.warmupCalls} calls per contender at c=${warmupConcurrency}, ${chunks} chunk(s) interleaved`,
    )
    await interleaved(chunks, [...running.keys()], async (key, round) => {
      if (failed.has(key)) return
      const calls = Math.min(WARMUP_CHUNK, settings.warmupCalls - round * WARMUP_CHUNK)
      try {
        const list = warmups.get(key) ?? []
        list.push(await warmUp(running.get(key)!, calls))
        warmups.set(key, list)
      } catch (error) {
        if (key === "direct") throw error
        failed.set(
          key,
          `failed during the warm-up: ${(error as Error).message.replace(/\s+/g, " ").slice(0, 300)}`,
        )
        log(`${key} dropped: ${failed.get(key)}`)
      }
    })
  }

  const cells = [...running.keys()].flatMap((key) =>
    settings.concurrency.map((concurrency) => ({ key, concurrency })),
  )
  const id = (key: string, concurrency: number) => `${key}@${concurrency}`
  let done = 0
  await interleaved(settings.rounds, cells, async ({ key, concurrency }) => {
    if (done++ % cells.length === 0) log(`round ${Math.ceil(done / cells.length)} of ${settings.rounds}`)
    if (failed.has(key)) return
    const list = samples.get(id(key, concurrency)) ?? []
    try {
      list.push(await measure(running.get(key)!, concurrency))
    } catch (error) {
      if (key === "direct") throw error
      failed.set(key, `failed during a round: ${(error as Error).message.replace(/\s+/g, " ").slice(0, 300)}`)
      log(`${key} dropped: ${failed.get(key)}`)
      return
    }
    samples.set(id(key, concurrency), list)
  })

  console.log(
    heading(
      "Gateway versus peers: MCP tools/call (SDK client, one echo call per request) on loopback",
      `toolplane serve from ${gatewayBuild()}; ${settings.warmupCalls} warm-up calls per contender at c=${warmupConcurrency} first; ${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; ratios are the median of per-round ratios to direct (Streamable HTTP, JSON answers) at the same concurrency; CPU above floor is the median of per-round differences to the section's floor at the same concurrency`,
    ),
  )
  for (const upstreamKind of ["http", "stdio"] as const) {
    console.log(`\n### Upstream over ${upstreamKind === "http" ? "Streamable HTTP" : "stdio"}\n`)
    const rows: (string | number)[][] = []
    for (const c of contenders.filter((x) => x.upstream === upstreamKind)) {
      if (only && !only.includes(c.key) && c.key !== "direct") continue
      if (failed.has(c.key)) {
        rows.push([c.label, "—", "could not run", "", "", "", failed.get(c.key)!, ""])
        continue
      }
      for (const concurrency of settings.concurrency) {
        const mine = samples.get(id(c.key, concurrency))!
        const base = samples.get(id("direct", concurrency))!
        const ratios = mine.map((s, i) => s.throughput / base[i]!.throughput)
        const cpu = median(mine.map((s) => s.cpuPerCall))
        const above = aboveFloor(c.key, concurrency)
        rows.push([
          c.label,
          concurrency,
          fmt(median(mine.map((s) => s.throughput))),
          fmt(median(mine.map((s) => s.p50)), 2),
          fmt(median(mine.map((s) => s.p99)), 2),
          `${fmt(median(ratios), 2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
          Number.isNaN(cpu) ? "n/a" : `${fmt(cpu)}${c.key.startsWith("direct") ? " (server)" : ""}`,
          c.key.startsWith("floor")
            ? "0 (the floor)"
            : above === undefined
              ? "—"
              : `${fmt(above)}${c.key.startsWith("direct") ? " (server)" : ""}`,
        ])
      }
    }
    console.log(
      markdownTable(
        [
          "contender",
          "c",
          "calls/s",
          "p50 ms",
          "p99 ms",
          "÷ direct (rounds)",
          "gateway CPU µs/call",
          "CPU above floor µs/call",
        ],
        rows,
        [1, 2, 3, 4, 5, 6, 7],
      ),
    )
  }
  if (baseCli) {
    console.log(`\n### This checkout against the base (${baseCli}), same rounds\n`)
    const rows: (string | number)[][] = []
    for (const upstreamKind of ["http", "stdio"] as const)
      for (const concurrency of settings.concurrency) {
        const mine = samples.get(id(`toolplane-${upstreamKind}`, concurrency))
        const base = samples.get(id(`toolplane-base-${upstreamKind}`, concurrency))
        if (!mine || !base) continue
        const cpu = mine.map((s, i) => s.cpuPerCall / base[i]!.cpuPerCall)
        const speed = mine.map((s, i) => s.throughput / base[i]!.throughput)
        rows.push([
          upstreamKind,
          concurrency,
          `${fmt(median(base.map((s) => s.cpuPerCall)))} → ${fmt(median(mine.map((s) => s.cpuPerCall)))}`,
          `${fmt(median(cpu), 2)} (${cpu.map((r) => r.toFixed(2)).join(", ")})`,
          `${fmt(median(speed), 2)} (${speed.map((r) => r.toFixed(2)).join(", ")})`,
        ])
      }
    console.log(
      markdownTable(
        [
          "upstream",
          "c",
          "gateway CPU µs/call, base → this",
          "CPU ÷ base (rounds)",
          "calls/s ÷ base (rounds)",
        ],
        rows,
        [1, 2, 3, 4],
      ),
    )
  }
  if (warmups.size > 0) {
    console.log(
      `\n### Warm-up: CPU µs/call per chunk of ${fmt(WARMUP_CHUNK)} calls at c=${warmupConcurrency}, then the measured rounds\n`,
    )
    const chunks = Math.ceil(settings.warmupCalls / WARMUP_CHUNK)
    const span = (i: number) =>
      `calls ${fmt((i * WARMUP_CHUNK) / 1000)}k–${fmt(Math.min((i + 1) * WARMUP_CHUNK, settings.warmupCalls) / 1000, settings.warmupCalls % 1000 ? 1 : 0)}k`
    const rows: (string | number)[][] = []
    for (const c of contenders) {
      const list = warmups.get(c.key)
      if (!list || failed.has(c.key)) continue
      const measured = samples.get(id(c.key, warmupConcurrency))
      rows.push([
        c.label,
        c.upstream,
        ...Array.from({ length: chunks }, (_, i) =>
          list[i] === undefined || Number.isNaN(list[i]!.cpuPerCall) ? "n/a" : fmt(list[i]!.cpuPerCall),
        ),
        measured ? fmt(median(measured.map((s) => s.cpuPerCall))) : "—",
      ])
    }
    console.log(
      markdownTable(
        [
          "contender",
          "upstream",
          ...Array.from({ length: chunks }, (_, i) => span(i)),
          `measured rounds, c=${warmupConcurrency} (median)`,
        ],
        rows,
        Array.from({ length: chunks + 1 }, (_, i) => i + 2),
      ),
    )
  }
  console.log("\n### Goals, this run\n")
  console.log(markdownTable(["goal", "measured", "verdict"], goals(), []))
} finally {
  log("stopping")
  await Promise.all([...running.values()].map((r) => r.client.close().catch(() => {})))
  log("clients closed")
  await Promise.all(children.map((child) => stopProcess(child)))
  log("processes stopped")
  rmSync(tmp, { recursive: true, force: true })
  // Sockets a contender's client library keeps (SSE, keep-alive) must not hold the run open.
  setTimeout(() => process.exit(), 1000).unref()
}
