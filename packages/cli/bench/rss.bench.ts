/**
 * Memory of the gateway under sustained load: the SDK client drives BENCH_RSS_CALLS (default
 * 100,000) `echo` calls through `toolplane serve --transport http` fronting the SDK upstream
 * (`bench/upstream.ts`) over stdio and over Streamable HTTP, at concurrency BENCH_RSS_CONCURRENCY (default
 * 32), and every BENCH_RSS_EVERY calls (default 10,000) asks the gateway for its memory after a full GC
 * (`--expose-gc` and a small probe preloaded; SIGUSR2). Prints RSS and V8 heap after GC at each
 * point and their slope (least squares over the points after the first, i.e. after warm-up), in bytes per
 * call and MB per 100k calls. A gateway that keeps nothing per call has a heap slope near 0.
 *
 * Env: BENCH_RSS_CALLS, BENCH_RSS_EVERY, BENCH_RSS_CONCURRENCY, BENCH_RSS_UPSTREAMS ("stdio,http"),
 * BENCH_GATEWAY_BUILD ("source" or "dist", see gatewayCommand.ts).
 * Linux/macOS only (signals). About 2 × 100k calls: minutes on a loaded machine.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { fmt, heading, markdownTable } from "@toolplane/bench-kit"
import { gatewayBuild, gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

/**
 * Preloaded into the gateway (`--import`, as a data: URL so it needs no loader): on SIGUSR2 it runs a full
 * GC twice and appends the process's memory use as one JSON line to TOOLPLANE_BENCH_MEMORY_FILE.
 */
const MEMORY_PROBE = `data:text/javascript,${encodeURIComponent(
  [
    'import { appendFileSync } from "node:fs"',
    "const file = process.env.TOOLPLANE_BENCH_MEMORY_FILE",
    'if (file) process.on("SIGUSR2", () => {',
    "  globalThis.gc?.(); globalThis.gc?.()",
    "  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()",
    '  const gc = typeof globalThis.gc === "function"',
    "  appendFileSync(file, JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers, gc }) + String.fromCharCode(10))",
    "})",
  ].join("\n"),
)}`

const positive = (name: string, fallback: number): number => {
  const text = process.env[name]
  if (text === undefined || text === "") return fallback
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive integer, got "${text}"`)
  return n
}
const TOTAL = positive("BENCH_RSS_CALLS", 100_000)
const EVERY = positive("BENCH_RSS_EVERY", 10_000)
const CONCURRENCY = positive("BENCH_RSS_CONCURRENCY", 32)
const UPSTREAMS = (process.env.BENCH_RSS_UPSTREAMS ?? "stdio,http").split(",").map((s) => s.trim()) as (
  | "stdio"
  | "http"
)[]
for (const u of UPSTREAMS)
  if (u !== "stdio" && u !== "http") throw new RangeError(`BENCH_RSS_UPSTREAMS: unknown upstream "${u}"`)

const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")
const tmp = mkdtempSync(join(tmpdir(), "toolplane-rss-"))
const children: ChildProcess[] = []

const start = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const child = spawn(process.execPath, args, {
    cwd: cliDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef", ...env },
  })
  children.push(child)
  let output = ""
  child.stdout!.on("data", (c: Buffer) => (output = (output + c.toString("utf8")).slice(-4000)))
  child.stderr!.on("data", (c: Buffer) => (output = (output + c.toString("utf8")).slice(-4000)))
  const waitFor = (pattern: RegExp, ms = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${output}`)), ms)
      const look = () => {
        const match = pattern.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      }
      child.stdout!.on("data", look)
      child.stderr!.on("data", look)
      child.once("exit", (code) => {
        clearTimeout(timer)
        reject(new Error(`exited (${code}) before ${pattern}: ${output}`))
      })
      look()
    })
  return { child, waitFor }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => child.kill("SIGKILL"), 5_000)
    child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    child.kill("SIGTERM")
  })

interface Point {
  readonly calls: number
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
}

/** Least-squares slope of y over x. */
const slope = (xs: readonly number[], ys: readonly number[]): number => {
  const n = xs.length
  if (n < 2) return Number.NaN
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my)
    den += (xs[i]! - mx) ** 2
  }
  return num / den
}

const run = async (upstreamKind: "stdio" | "http", upstreamUrl: string): Promise<Point[]> => {
  const memoryFile = join(tmp, `memory-${upstreamKind}.jsonl`)
  writeFileSync(memoryFile, "")
  const mcp =
    upstreamKind === "http"
      ? `{ url = ${JSON.stringify(upstreamUrl)} }`
      : `{ command = ${JSON.stringify(process.execPath)}, args = ${JSON.stringify(tsNode(join(here, "upstream.ts"), "--stdio"))} }`
  const config = join(tmp, `toolplane-${upstreamKind}.toml`)
  writeFileSync(
    config,
    `[server]\nname = "bench-gateway"\ntool_names = "name"\n\n[[backends]]\nname = "up"\nmcp = ${mcp}\nrequire_approval = false\n`,
  )
  const gateway = start(
    gatewayNodeArgs(
      ["serve", "--transport", "http", "--port", "0", "--config", config],
      ["--expose-gc", "--import", MEMORY_PROBE],
    ),
    { TOOLPLANE_BENCH_MEMORY_FILE: memoryFile },
  )
  const url = await gateway.waitFor(/ at (http:\/\/\S+)\n/)
  const client = new Client({ name: "rss-bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const sample = async (calls: number): Promise<Point> => {
    const before = readFileSync(memoryFile, "utf8").split("\n").filter(Boolean).length
    gateway.child.kill("SIGUSR2")
    for (let i = 0; i < 500; i++) {
      const lines = readFileSync(memoryFile, "utf8").split("\n").filter(Boolean)
      if (lines.length > before) {
        const m = JSON.parse(lines.at(-1)!) as {
          rss: number
          heapUsed: number
          external: number
          gc: boolean
        }
        if (!m.gc) throw new Error("the gateway has no gc(): --expose-gc did not reach it")
        return { calls, rss: m.rss, heapUsed: m.heapUsed, external: m.external }
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error("the gateway did not report its memory within 10 s")
  }
  const points: Point[] = []
  try {
    let done = 0
    const started = performance.now()
    while (done < TOTAL) {
      const target = Math.min(TOTAL, done + EVERY)
      let issued = done
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (issued < target) {
            issued++
            const result = await client.callTool({ name: "echo", arguments: { text: "hello" } })
            if ((result.content as { text?: string }[])[0]?.text !== "hello")
              throw new Error(`wrong answer: ${JSON.stringify(result)}`)
          }
        }),
      )
      done = target
      points.push(await sample(done))
      process.stderr.write(
        `rss bench (${upstreamKind}): ${done} calls, ${fmt(done / ((performance.now() - started) / 1000))} calls/s, rss ${fmt(points.at(-1)!.rss / 1e6, 1)} MB, heap ${fmt(points.at(-1)!.heapUsed / 1e6, 2)} MB\n`,
      )
    }
  } finally {
    await client.close().catch(() => {})
    await stop(gateway.child)
  }
  return points
}

try {
  const upstream = start(tsNode(join(here, "upstream.ts"), "--json"))
  const upstreamUrl = await upstream.waitFor(/^(http:\/\/\S+)\n/m)
  console.log(
    heading(
      "Gateway memory under sustained load: RSS and V8 heap after a full GC",
      `${TOTAL.toLocaleString("en-US")} echo calls per upstream through toolplane serve (from ${gatewayBuild()}) at concurrency ${CONCURRENCY}, a point every ${EVERY.toLocaleString("en-US")} calls; slope = least squares over the points after the first`,
    ),
  )
  for (const kind of UPSTREAMS) {
    const points = await run(kind, upstreamUrl)
    const steady = points.slice(1)
    const xs = steady.map((p) => p.calls)
    const rssSlope = slope(
      xs,
      steady.map((p) => p.rss),
    )
    const heapSlope = slope(
      xs,
      steady.map((p) => p.heapUsed),
    )
    console.log(`\n### Upstream over ${kind === "http" ? "Streamable HTTP" : "stdio"}\n`)
    console.log(
      markdownTable(
        ["calls", "RSS MB", "heap used MB", "external MB"],
        points.map((p) => [
          p.calls.toLocaleString("en-US"),
          fmt(p.rss / 1e6, 1),
          fmt(p.heapUsed / 1e6, 2),
          fmt(p.external / 1e6, 2),
        ]),
        [0, 1, 2, 3],
      ),
    )
    console.log(
      `\nslope after warm-up: RSS ${fmt(rssSlope, 2)} bytes/call (${fmt((rssSlope * 1e5) / 1e6, 2)} MB per 100k calls), heap ${fmt(heapSlope, 3)} bytes/call (${fmt((heapSlope * 1e5) / 1e6, 3)} MB per 100k calls)`,
    )
  }
} finally {
  await Promise.all(children.map(stop))
  rmSync(tmp, { recursive: true, force: true })
}
