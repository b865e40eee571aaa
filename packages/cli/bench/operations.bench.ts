/**
 * What operating costs: the gateway CPU per relayed call of `toolplane serve` with `[metrics]` (a
 * Prometheus listener) and `[audit]` (a JSON-lines file, HMACs of arguments and results, one write per
 * record) on, against the same gateway with both off, in the same run, at concurrency 1 and 32. The goal
 * is within 10% (candidate ÷ baseline ≤ 1.10).
 *
 * Topology: one upstream (bench/upstream.ts, SDK McpServer over HTTP, own process) behind several
 * `toolplane serve --transport http` processes (own processes, the real CLI): "off" and one per
 * candidate. Every round runs every (concurrency, gateway) cell once, in an order rotated by one per
 * round; a cell is a warm-up of 300 ms and a measured window of BENCH_ROUND_MS. The figure is the CPU time
 * of the gateway process alone per completed call, read from `/proc/<pid>/task/<tid>/schedstat` (exact
 * nanoseconds of every thread, not clock ticks); a ratio is taken within each round (candidate ÷ off of
 * that round) and reported as the median with its interquartile range.
 *
 * The load comes from a minimal MCP client in this process (BENCH_OPS_CLIENT=raw, default): one
 * streamable-HTTP session (initialize, then `tools/call` POSTs over `node:http` keep-alive connections,
 * one per worker), so the two cores go to the gateway under test rather than to the load generator.
 * BENCH_OPS_CLIENT=sdk uses the MCP SDK's client instead (what this benchmark used before; it costs the
 * gateway more CPU per call and its own CPU shares the two cores with the gateways). On a machine shared
 * with other jobs their load, not the client, is most of the spread between rounds.
 *
 * Env: BENCH_CONCURRENCY (default "1,32"), BENCH_ROUND_MS (default 1500), BENCH_ROUNDS (default 9),
 * BENCH_WARMUP_CALLS (default 3000: calls each gateway answers, 8 at a time, before the first round),
 * BENCH_GATEWAY_NODE_ARGS, BENCH_GATEWAY_BUILD (see gatewayCommand.ts), BENCH_OPS_CANDIDATE
 * ("both", default; "metrics" or "audit" to measure one of them alone; "each" for all three in the same
 * rounds), BENCH_OPS_CLIENT ("raw", default, or "sdk"), BENCH_OPS_OTHER_TREE (a checkout of another
 * commit with its dependencies linked: its gateways run beside this tree's, off and candidates, in the
 * same rounds, so two commits are compared in one session), BENCH_OPS_AUDIT_DIR (where the audit files go;
 * default the system's temporary directory).
 *
 * `--json` prints one object instead of the tables: `{ node, cores, loadavg: { before, after }, settings,
 * client, candidate, trees, results: { "<concurrency>": { "<tree>": { "<gateway>": { cpuUsPerCall,
 * callsPerSecond, rounds, ratio?: { median, q1, q3, min, max, rounds } } } } } }` (µs; ratios against
 * that tree's "off").
 *
 *   pnpm --filter @toolplane/cli bench:ops [--json]
 */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  benchSettings,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  processThreadsCpuUs,
  spawnNodeUntil,
  stopProcess,
} from "@toolplane/bench-kit"
import { gatewayBuild, gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 9, roundMs: 1500, concurrency: [1, 32], warmupCalls: 3000 })
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")
const asJson = process.argv.includes("--json")
const env = {
  TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef",
  TOOLPLANE_AUDIT_KEY: "bench-audit-key-0123456789abcdef",
}

const candidateKind = process.env.BENCH_OPS_CANDIDATE ?? "both"
if (!["both", "metrics", "audit", "each"].includes(candidateKind))
  throw new RangeError(
    `BENCH_OPS_CANDIDATE must be "both", "metrics", "audit" or "each", got "${candidateKind}"`,
  )
const clientKind = process.env.BENCH_OPS_CLIENT ?? "raw"
if (clientKind !== "raw" && clientKind !== "sdk")
  throw new RangeError(`BENCH_OPS_CLIENT must be "raw" or "sdk", got "${clientKind}"`)
const otherTree = process.env.BENCH_OPS_OTHER_TREE ? resolve(process.env.BENCH_OPS_OTHER_TREE) : undefined

type Feature = "metrics" | "audit" | "both"
const candidates: Feature[] =
  candidateKind === "each" ? ["metrics", "audit", "both"] : [candidateKind as Feature]
const labelOf = (f: Feature | "off") => (f === "both" ? "metrics + audit" : f)

/** One call of the echo tool through whatever client; resolves once the answer is checked. */
type Call = () => Promise<void>

const checkText = (text: unknown) => {
  if (text !== "hello") throw new Error(`wrong answer: ${JSON.stringify(text)}`)
}

/** The MCP SDK's client (one session). */
const sdkClient = async (url: string): Promise<{ call: Call; close: () => Promise<void> }> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return {
    call: async () => {
      const result = await client.callTool({ name: "echo", arguments: { text: "hello" } })
      checkText((result.content as { text?: string }[])[0]?.text)
    },
    close: () => client.close(),
  }
}

/**
 * A minimal streamable-HTTP MCP client: one session, `tools/call` POSTs with prebuilt headers and body
 * text over keep-alive connections, the answer read as JSON or as the `data:` line of an SSE stream.
 */
const rawClient = async (url: string): Promise<{ call: Call; close: () => Promise<void> }> => {
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  }
  const post = (body: string) =>
    new Promise<{ status: number; session: string | undefined; text: string }>((done, fail) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers },
        (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (d: string) => {
            text += d
          })
          res.on("end", () =>
            done({ status: res.statusCode ?? 0, session: res.headers["mcp-session-id"] as string, text }),
          )
          res.on("error", fail)
        },
      )
      req.on("error", fail)
      req.end(body)
    })
  const message = (text: string): { result?: unknown; error?: unknown } => {
    if (text.startsWith("{")) return JSON.parse(text)
    const at = text.indexOf("data: ")
    if (at < 0) throw new Error(`no JSON-RPC message in ${JSON.stringify(text.slice(0, 200))}`)
    const end = text.indexOf("\n", at)
    return JSON.parse(text.slice(at + 6, end < 0 ? undefined : end))
  }
  const init = await post(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "0" },
      },
    }),
  )
  const initialized = message(init.text) as { result?: { protocolVersion?: string } }
  if (init.status !== 200 || init.session === undefined || initialized.result?.protocolVersion === undefined)
    throw new Error(`initialize failed (${init.status}): ${init.text.slice(0, 300)}`)
  headers["mcp-session-id"] = init.session
  headers["mcp-protocol-version"] = initialized.result.protocolVersion
  const note = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  if (note.status !== 202 && note.status !== 200) throw new Error(`initialized notification: ${note.status}`)
  let id = 1
  const head = '{"jsonrpc":"2.0","id":'
  const tail = ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'
  return {
    call: async () => {
      const answer = await post(head + id++ + tail)
      if (answer.status !== 200)
        throw new Error(`tools/call: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`)
      const m = message(answer.text) as { result?: { content?: { text?: string }[] } }
      checkText(m.result?.content?.[0]?.text)
    },
    close: async () => {
      agent.destroy()
    },
  }
}

/** `concurrency` workers call, await and call again until `ms` have passed; returns the calls made. */
const closedLoop = async (call: Call, concurrency: number, ms: number): Promise<number> => {
  const stopAt = performance.now() + ms
  let calls = 0
  const worker = async () => {
    while (performance.now() < stopAt) {
      await call()
      calls++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return calls
}

interface Gateway {
  readonly tree: string
  readonly name: Feature | "off"
  readonly pid: number | undefined
  readonly call: Call
}
interface Sample {
  readonly cpuUsPerCall: number
  readonly callsPerSecond: number
}

const loadBefore = loadavg()
const started = await spawnNodeUntil(tsNode(join(here, "upstream.ts")), {
  pattern: /^(http:\/\/\S+)\n/,
  cwd: cliDir,
  env,
})
const upstream = started.child
const children: ChildProcess[] = []
const closers: (() => Promise<void>)[] = []
const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-ops-"))
const auditDir = process.env.BENCH_OPS_AUDIT_DIR
  ? mkdtempSync(join(process.env.BENCH_OPS_AUDIT_DIR, "toolplane-bench-ops-"))
  : tmp
try {
  const backend = [
    "[[backends]]",
    'name = "up"',
    `mcp = { url = "${started.match}" }`,
    "require_approval = false",
    "",
  ]
  const configOf = (feature: Feature | "off", tree: string): string => {
    const file = join(tmp, `${tree}-${feature}.toml`)
    const auditFile = join(auditDir, `${tree}-${feature}.audit.jsonl`)
    writeFileSync(
      file,
      [
        '[server]\ntool_names = "name"',
        feature === "metrics" || feature === "both" ? '[metrics]\nlisten = "127.0.0.1:0"' : "",
        feature === "audit" || feature === "both"
          ? `[audit]\nfile = ${JSON.stringify(auditFile)}\nmax_bytes = 1073741824`
          : "",
        ...backend,
      ].join("\n"),
    )
    return file
  }
  const treeArgs = (tree: string, args: readonly string[]): string[] => {
    if (tree === "this") return gatewayNodeArgs(args)
    const otherCli = join(otherTree!, "packages", "cli")
    const fromEnv = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)
    const entry =
      gatewayBuild() === "dist"
        ? [join(otherCli, "bin", "toolplane.js")]
        : tsNode(join(otherCli, "src", "main.ts"))
    return [...fromEnv, ...entry, ...args]
  }
  const serve = async (tree: string, name: Feature | "off"): Promise<Gateway> => {
    const config = configOf(name, tree)
    const served = await spawnNodeUntil(
      treeArgs(tree, ["serve", "--transport", "http", "--port", "0", "--config", config]),
      {
        pattern: /Streamable HTTP at (http:\/\/\S+)\n/,
        stream: "stderr",
        cwd: tree === "this" ? cliDir : join(otherTree!, "packages", "cli"),
        env,
      },
    )
    children.push(served.child)
    const client = clientKind === "raw" ? await rawClient(served.match) : await sdkClient(served.match)
    closers.push(client.close)
    return { tree, name, pid: served.child.pid, call: client.call }
  }
  const trees = otherTree === undefined ? ["this"] : ["this", "other"]
  const gateways: Gateway[] = []
  for (const tree of trees)
    for (const name of ["off", ...candidates] as const) gateways.push(await serve(tree, name))

  // Steady state before the first round: the same number of calls for every gateway (JIT, pools).
  for (const g of gateways) {
    let left = settings.warmupCalls
    const worker = async () => {
      while (left-- > 0) await g.call()
    }
    await Promise.all(Array.from({ length: 8 }, worker))
  }
  const samples = new Map<string, Sample[]>()
  const key = (c: number, g: Gateway) => `${c}\u0000${g.tree}\u0000${g.name}`
  const cells = settings.concurrency.flatMap((concurrency) =>
    gateways.map((gateway) => ({ concurrency, gateway })),
  )
  await interleaved(settings.rounds, cells, async ({ concurrency, gateway }) => {
    await closedLoop(gateway.call, concurrency, 300)
    const before = processThreadsCpuUs(gateway.pid)
    const t0 = performance.now()
    const calls = await closedLoop(gateway.call, concurrency, settings.roundMs)
    const seconds = (performance.now() - t0) / 1000
    const after = processThreadsCpuUs(gateway.pid)
    const cpu =
      before === undefined || after === undefined || calls === 0 ? Number.NaN : (after - before) / calls
    const list = samples.get(key(concurrency, gateway)) ?? []
    list.push({ cpuUsPerCall: cpu, callsPerSecond: calls / seconds })
    samples.set(key(concurrency, gateway), list)
  })
  const loadAfter = loadavg()

  const q = (xs: readonly number[], p: number) => {
    // Linear interpolation between order statistics (the usual quartiles for a handful of rounds).
    const s = [...xs].sort((a, b) => a - b)
    const at = (s.length - 1) * p
    const lo = Math.floor(at)
    return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo)
  }
  const results: Record<string, Record<string, Record<string, unknown>>> = {}
  const rows: (string | number)[][] = []
  for (const c of settings.concurrency) {
    results[c] = {}
    for (const tree of trees) {
      results[c]![tree] = {}
      const off = samples.get(`${c}\u0000${tree}\u0000off`)!
      for (const g of gateways.filter((x) => x.tree === tree)) {
        const s = samples.get(key(c, g))!
        const cpu = s.map((x) => x.cpuUsPerCall)
        const entry: Record<string, unknown> = {
          cpuUsPerCall: median(cpu),
          callsPerSecond: median(s.map((x) => x.callsPerSecond)),
          rounds: cpu,
        }
        let ratioText = ""
        if (g.name !== "off") {
          const ratios = s.map((x, i) => x.cpuUsPerCall / off[i]!.cpuUsPerCall)
          entry.ratio = {
            median: median(ratios),
            q1: q(ratios, 0.25),
            q3: q(ratios, 0.75),
            min: Math.min(...ratios),
            max: Math.max(...ratios),
            rounds: ratios,
          }
          ratioText = `${fmt(median(ratios), 3)} (IQR ${fmt(q(ratios, 0.25), 3)}–${fmt(q(ratios, 0.75), 3)}; rounds ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`
        }
        results[c]![tree]![g.name] = entry
        rows.push([
          c,
          ...(trees.length > 1 ? [tree === "this" ? "this tree" : "other tree"] : []),
          labelOf(g.name),
          fmt(median(cpu)),
          `${fmt(q(cpu, 0.25))}–${fmt(q(cpu, 0.75))}`,
          fmt(median(s.map((x) => x.callsPerSecond))),
          ratioText,
        ])
      }
    }
  }
  const records = gateways
    .filter((g) => g.name === "audit" || g.name === "both")
    .map(
      (g) => readFileSync(join(auditDir, `${g.tree}-${g.name}.audit.jsonl`), "utf8").split("\n").length - 1,
    )
  if (asJson)
    console.log(
      JSON.stringify({
        node: process.versions.node,
        cores: availableParallelism(),
        loadavg: { before: loadBefore, after: loadAfter },
        settings,
        client: clientKind,
        candidate: candidateKind,
        trees: trees.map((t) => (t === "this" ? cliDir : otherTree)),
        auditRecords: records,
        results,
      }),
    )
  else {
    console.log(
      heading(
        "Operating cost: gateway CPU per relayed call, metrics + audit on ÷ off",
        `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds and of per-round ratios (IQR: 25th–75th percentile); ${clientKind} client; load average before ${loadBefore.map((x) => x.toFixed(2)).join(" ")}; audit records written: ${records.join(", ")}`,
      ),
    )
    console.log(
      markdownTable(
        [
          "concurrency",
          ...(trees.length > 1 ? ["tree"] : []),
          "gateway",
          "CPU µs/call",
          "IQR",
          "calls/s",
          "÷ off (median, IQR, rounds)",
        ],
        rows,
      ),
    )
  }
} finally {
  await Promise.all(closers.map((c) => c().catch(() => {})))
  await Promise.all([...children.map((g) => stopProcess(g)), stopProcess(upstream)])
  rmSync(tmp, { recursive: true, force: true })
  rmSync(auditDir, { recursive: true, force: true })
}
