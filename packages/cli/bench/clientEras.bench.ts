/**
 * The two protocol eras through one gateway: the CPU `toolplane serve` spends per relayed `tools/call`
 * when the client speaks MCP 2026-07-28 (stateless: every request carries its version, capabilities and
 * client info in `_meta` and the `Mcp-Method`/`Mcp-Name` headers, no session) against the same client on
 * 2025-11-25 (`initialize` once, then the `Mcp-Session-Id` on every request), fronting the same upstream
 * over HTTP and over stdio, at c=1 and c=32, with the same-run floors of the peers benchmark
 * (`floorRelay.ts`: a layer-4 relay for HTTP, a minimal stdio relay) as the reference.
 *
 *   bench (raw HTTP/1.1 client) ──▶ toolplane serve ──HTTP──▶ upstream (bench/upstream.ts, SDK McpServer)
 *                               ──▶ toolplane serve ──stdio─▶ upstream (the same server over stdio)
 *                               ──▶ floor relay (HTTP | stdio) ──▶ the same upstream
 *
 * One gateway process per upstream kind serves both eras on one endpoint, so both eras are measured on
 * the same process. Both eras use the same hand-rolled client (`node:http`, keep-alive agent, the request
 * bytes built once per call), so the client adds the same (small) cost to either side; the figure that
 * matters is the gateway process's CPU per call, read from /proc. The floors carry the 2025 client (a bare
 * relay does not care which era the bytes are; the stdio floor matches answers by the id, so every request
 * writes its id last, as the SDK clients do). Rounds interleave every cell (contender × era ×
 * concurrency), rotating the order; medians of rounds; "2026 ÷ 2025" is the median of per-round ratios.
 *
 * Env: BENCH_ROUNDS (default 5), BENCH_ROUND_MS (default 1500), BENCH_CONCURRENCY (default "1,32"),
 * BENCH_WARMUP_CALLS (default 5,000 per gateway cell), BENCH_GATEWAY_BUILD ("source" or "dist"), and
 * `--json` for one machine-readable object on stdout instead of the tables.
 *
 *   pnpm --filter @toolplane/cli bench:eras [--json]
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/client"
import {
  benchSettings,
  closedLoop,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  processCpuUs,
} from "@toolplane/bench-kit"
import { gatewayBuild, gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 5, roundMs: 1500, concurrency: [1, 32], warmupCalls: 5000 })
const asJson = process.argv.includes("--json")
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")
const tmp = mkdtempSync(join(tmpdir(), "toolplane-eras-"))
const upstreamFile = join(here, "upstream.ts")
const floorFile = join(here, "floorRelay.ts")
const stdioUpstream = { command: process.execPath, args: tsNode(upstreamFile, "--stdio") }

const children: ChildProcess[] = []
const spawnChild = (args: readonly string[]) => {
  const child = spawn(process.execPath, args, {
    cwd: cliDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef" },
  })
  let tail = ""
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-4000)
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  children.push(child)
  return { child, output: () => tail }
}

/** The first `http://…` URL a process prints (the upstream on stdout; the gateway and floors on stderr). */
const urlOf = (proc: ReturnType<typeof spawnChild>) =>
  new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after 180 s: ${proc.output()}`)), 180_000)
    const look = () => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\S*)\n/.exec(proc.output())
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    proc.child.stdout!.on("data", look)
    proc.child.stderr!.on("data", look)
    proc.child.once("exit", (code) => reject(new Error(`exited (${code}): ${proc.output()}`)))
  })

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** One POST; resolves with the status, the session header and the body text. */
const post = (url: URL, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; session: string | undefined; body: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          text += chunk
        })
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            session: res.headers["mcp-session-id"] as string | undefined,
            body: text,
          }),
        )
        res.on("error", reject)
      },
    )
    req.on("error", reject)
    req.end(body)
  })

type Era = "2025-11-25" | "2026-07-28"
type Call = () => Promise<void>

const expectEcho = (era: Era, answer: { status: number; body: string }) => {
  if (answer.status !== 200 || !answer.body.includes('"text":"hello"'))
    throw new Error(`${era} tools/call answered ${answer.status}: ${answer.body.slice(0, 300)}`)
}

/** A 2025-11-25 client: `initialize` once, then calls carrying the session id (when the server gave one). */
const legacyClient = async (endpoint: string): Promise<Call> => {
  const url = new URL(endpoint)
  const init = await post(
    url,
    {},
    JSON.stringify({
      jsonrpc: "2.0",
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "0" },
      },
      id: 0,
    }),
  )
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 300)}`)
  const headers: Record<string, string> = { "mcp-protocol-version": "2025-11-25" }
  if (init.session) headers["mcp-session-id"] = init.session
  await post(url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  let id = 1
  return async () => {
    const body = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}},"id":${id++}}`
    expectEcho("2025-11-25", await post(url, headers, body))
  }
}

/** A 2026-07-28 client: no handshake; every call carries the version, capabilities and client info. */
const modernClient = async (endpoint: string): Promise<Call> => {
  const url = new URL(endpoint)
  const headers = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  }
  const meta = JSON.stringify({
    [PROTOCOL_VERSION_META_KEY]: "2026-07-28",
    [CLIENT_CAPABILITIES_META_KEY]: {},
    [CLIENT_INFO_META_KEY]: { name: "bench", version: "0" },
  })
  let id = 1
  return async () => {
    const body = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":${meta}},"id":${id++}}`
    expectEcho("2026-07-28", await post(url, headers, body))
  }
}

interface Contender {
  readonly key: string
  readonly label: string
  readonly upstream: "http" | "stdio"
  readonly eras: readonly Era[]
  pid?: number
  url?: string
}

const contenders: Contender[] = [
  { key: "floor-http", label: "floor: layer-4 relay", upstream: "http", eras: ["2025-11-25"] },
  { key: "toolplane-http", label: "toolplane serve", upstream: "http", eras: ["2025-11-25", "2026-07-28"] },
  { key: "floor-stdio", label: "floor: minimal stdio relay", upstream: "stdio", eras: ["2025-11-25"] },
  { key: "toolplane-stdio", label: "toolplane serve", upstream: "stdio", eras: ["2025-11-25", "2026-07-28"] },
]

const startContender = async (c: Contender, upstreamUrl: string) => {
  let proc: ReturnType<typeof spawnChild>
  if (c.key.startsWith("floor")) {
    proc = spawnChild([
      floorFile,
      ...(c.upstream === "http"
        ? ["--http", upstreamUrl]
        : ["--stdio", stdioUpstream.command, ...stdioUpstream.args]),
    ])
  } else {
    const config = join(tmp, `${c.key}.toml`)
    const mcp =
      c.upstream === "http"
        ? `{ url = ${JSON.stringify(upstreamUrl)} }`
        : `{ command = ${JSON.stringify(stdioUpstream.command)}, args = ${JSON.stringify(stdioUpstream.args)} }`
    writeFileSync(
      config,
      `[server]\nname = "bench-gateway"\ntool_names = "name"\n\n[[backends]]\nname = "up"\nmcp = ${mcp}\nrequire_approval = false\n`,
    )
    proc = spawnChild(gatewayNodeArgs(["serve", "--transport", "http", "--port", "0", "--config", config]))
  }
  c.url = await urlOf(proc)
  c.pid = proc.child.pid
}

interface Cell {
  readonly contender: Contender
  readonly era: Era
  readonly concurrency: number
  call?: Call
}

interface Sample {
  readonly throughput: number
  readonly cpuUs: number
}

try {
  const upstream = spawnChild(tsNode(upstreamFile, "--json"))
  const upstreamUrl = await urlOf(upstream)
  for (const c of contenders) await startContender(c, upstreamUrl)

  const cells: Cell[] = contenders.flatMap((contender) =>
    contender.eras.flatMap((era) =>
      settings.concurrency.map((concurrency) => ({ contender, era, concurrency })),
    ),
  )
  for (const cell of cells) {
    cell.call = await (cell.era === "2026-07-28" ? modernClient : legacyClient)(cell.contender.url!)
    await cell.call() // fails here, naming the era and the answer, if a side cannot call at all
  }

  // Steady state first: every cell makes the same number of calls before anything is measured.
  for (const cell of cells) {
    const perWorker = Math.ceil(settings.warmupCalls / cell.concurrency)
    await Promise.all(
      Array.from({ length: cell.concurrency }, async () => {
        for (let i = 0; i < perWorker; i++) await cell.call!()
      }),
    )
  }

  const samples = new Map<Cell, Sample[]>(cells.map((cell) => [cell, []]))
  await interleaved(settings.rounds, cells, async (cell) => {
    const before = processCpuUs(cell.contender.pid) ?? 0
    const load = await closedLoop(cell.call!, {
      concurrency: cell.concurrency,
      ms: settings.roundMs,
      warmupMs: 100,
    })
    const cpu = (processCpuUs(cell.contender.pid) ?? 0) - before
    // closedLoop's warm-up calls are inside the CPU window: charge them by the measured rate.
    const warmCalls = load.throughput * 0.1
    samples.get(cell)!.push({ throughput: load.throughput, cpuUs: cpu / (load.calls + warmCalls) })
  })

  const find = (key: string, era: Era, concurrency: number) =>
    cells.find((c) => c.contender.key === key && c.era === era && c.concurrency === concurrency)!
  const med = (cell: Cell, k: keyof Sample) => median(samples.get(cell)!.map((s) => s[k]))
  /** Per round, a's CPU minus b's (or a ÷ b), then the median. */
  const perRound = (a: Cell, b: Cell, op: (x: number, y: number) => number) =>
    median(samples.get(a)!.map((s, i) => op(s.cpuUs, samples.get(b)!.at(i)!.cpuUs)))

  const rows: Record<string, Record<string, number>>[] = []
  const table: (string | number)[][] = []
  for (const upstreamKind of ["http", "stdio"] as const)
    for (const concurrency of settings.concurrency) {
      const floorCell = find(`floor-${upstreamKind}`, "2025-11-25", concurrency)
      const legacy = find(`toolplane-${upstreamKind}`, "2025-11-25", concurrency)
      const modern = find(`toolplane-${upstreamKind}`, "2026-07-28", concurrency)
      const row = {
        floorCpuUs: med(floorCell, "cpuUs"),
        legacyCpuUs: med(legacy, "cpuUs"),
        modernCpuUs: med(modern, "cpuUs"),
        legacyAboveFloorUs: perRound(legacy, floorCell, (x, y) => x - y),
        modernAboveFloorUs: perRound(modern, floorCell, (x, y) => x - y),
        modernOverLegacyCpu: perRound(modern, legacy, (x, y) => x / y),
        legacyCallsPerSec: med(legacy, "throughput"),
        modernCallsPerSec: med(modern, "throughput"),
      }
      rows.push({ [`${upstreamKind}@${concurrency}`]: row })
      table.push([
        upstreamKind,
        concurrency,
        fmt(row.floorCpuUs),
        `${fmt(row.legacyCpuUs)} (${fmt(row.legacyAboveFloorUs)})`,
        `${fmt(row.modernCpuUs)} (${fmt(row.modernAboveFloorUs)})`,
        fmt(row.modernOverLegacyCpu, 2),
        fmt(row.legacyCallsPerSec),
        fmt(row.modernCallsPerSec),
        row.modernOverLegacyCpu <= 1.0 ? "met" : "missed",
      ])
    }

  if (asJson) {
    process.stdout.write(
      `${JSON.stringify({
        benchmark: "clientEras",
        settings: { ...settings, gatewayBuild: gatewayBuild() },
        cells: Object.assign({}, ...rows),
      })}\n`,
    )
  } else {
    console.log(
      heading(
        "MCP 2026-07-28 against 2025-11-25 clients through toolplane serve (gateway CPU per relayed call)",
        `toolplane serve from ${gatewayBuild()}; ${settings.warmupCalls} warm-up calls per cell; ${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; "above floor" and "2026 ÷ 2025" are medians of per-round differences and ratios`,
      ),
    )
    console.log(
      markdownTable(
        [
          "upstream",
          "c",
          "floor µs/call",
          "2025 client µs/call (above floor)",
          "2026 client µs/call (above floor)",
          "2026 ÷ 2025 CPU",
          "2025 calls/s",
          "2026 calls/s",
          "goal 2026 ≤ 2025",
        ],
        table,
      ),
    )
  }
} finally {
  agent.destroy()
  for (const child of children) child.kill("SIGTERM")
  rmSync(tmp, { recursive: true, force: true })
}
