/**
 * Where a relayed call's gateway CPU goes after the edge hands it over, stage by stage, in
 * process: a worker (`hopStagesWorker.ts`) holds the gateway stack `toolplane serve` builds, fronting the
 * SDK upstream (`upstream.ts`) over stdio and over Streamable HTTP, and runs one cell at a time:
 *
 * - `floor`: the same request bytes on a raw pipe / raw keep-alive socket to the same kind of upstream,
 *   the answer read back unparsed (what any relay pays for the hop);
 * - `backend`: `mcpBackend.execute` (context made as the edge makes it);
 * - `runner`: exec's runner `callTool` over that backend;
 * - `gateway`: the composed service of `openGateway` (compose's `gatewayStack` over the runner).
 *
 * CPU per call is the worker's own (user + system, `process.cpuUsage`, after a warm-up; the upstream's
 * CPU is its own process's). Each stage's share is its µs minus the previous stage's, per round.
 *
 * With `BENCH_BASE_CHECKOUT=<another checkout>` (e.g. a `git worktree` of `main`, `pnpm install` done), a
 * second worker runs that checkout's source in the same interleaved rounds (only one worker runs at a time)
 * and a table of this ÷ base is printed. The worker file is copied into the base checkout when it lacks it.
 *
 * BENCH_GATEWAY_BUILD=dist runs the workers on the packages' built `dist/` (run `pnpm build` in both
 * checkouts first) instead of the source through tsx.
 *
 * With BENCH_WORKER_NODE_ARGS="--expose-gc --max-semi-space-size=256" each cell also reports the V8 heap
 * bytes allocated per call (2,000 calls between two full GCs, before the timed part).
 *
 * Env (bench kit): BENCH_ROUNDS (default 5), BENCH_ROUND_MS (default 1500), BENCH_CONCURRENCY ("1,32");
 * BENCH_STAGES / BENCH_UPSTREAMS (comma-separated subsets), BENCH_WORKER_NODE_ARGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof" for the workers).
 */
import { type ChildProcess, fork, spawn } from "node:child_process"
import { copyFileSync, existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { benchSettings, fmt, heading, markdownTable, median } from "@toolplane/bench-kit"
import { gatewayBuild, tsNode } from "./gatewayCommand.js"
import type { Cell, CellResult } from "./hopStagesWorker.js"

const settings = benchSettings({ rounds: 5, roundMs: 1500, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))
const upstreamFile = join(here, "upstream.ts")
const baseCheckout = process.env.BENCH_BASE_CHECKOUT
const dist = gatewayBuild() === "dist"
/** Whether `name` is in the comma-separated list of `variable` (all when unset). */
const only = (name: string, variable: string): boolean =>
  process.env[variable] === undefined || process.env[variable]!.split(",").includes(name)

const upstream: ChildProcess = spawn(process.execPath, tsNode(upstreamFile, "--json"), {
  stdio: ["pipe", "pipe", "inherit"],
})
const url = await new Promise<string>((ok, fail) => {
  let seen = ""
  upstream.stdout!.on("data", (chunk: Buffer) => {
    seen += chunk.toString("utf8")
    const match = /^(http:\/\/\S+)\n/.exec(seen)
    if (match) ok(match[1]!)
  })
  upstream.once("exit", (code) => fail(new Error(`upstream exited (${code})`)))
})

interface Worker {
  readonly name: string
  readonly child: ChildProcess
  run(cell: Cell): Promise<CellResult>
}

const startWorker = async (name: string, cliDir: string): Promise<Worker> => {
  const file = join(cliDir, "bench", "hopStagesWorker.ts")
  if (!existsSync(file)) copyFileSync(join(here, "hopStagesWorker.ts"), file)
  const child = fork(file, [url, upstreamFile], {
    cwd: cliDir,
    execArgv: [
      ...(process.env.BENCH_WORKER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean),
      ...(dist ? [] : ["--conditions=@toolplane/source", "--import", import.meta.resolve("tsx")]),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  })
  let waiting: { ok: (r: CellResult) => void; fail: (e: Error) => void } | undefined
  await new Promise<void>((ok, fail) => {
    child.once("exit", (code) => fail(new Error(`worker ${name} exited (${code})`)))
    child.on("message", (m: { ready?: true; result?: CellResult; error?: string }) => {
      if (m.ready) ok()
      else if (m.result) waiting?.ok(m.result)
      else if (m.error) waiting?.fail(new Error(`${name}: ${m.error}`))
    })
  })
  return {
    name,
    child,
    run: (cell) =>
      new Promise((ok, fail) => {
        waiting = { ok, fail }
        child.send({ cell })
      }),
  }
}

const workers: Worker[] = []
try {
  workers.push(await startWorker("this", resolve(here, "..")))
  if (baseCheckout) workers.push(await startWorker("base", join(resolve(baseCheckout), "packages", "cli")))
  const stages = (["floor", "backend", "runner", "gateway"] as const).filter((s) => only(s, "BENCH_STAGES"))
  const upstreams = (["stdio", "http"] as const).filter((u) => only(u, "BENCH_UPSTREAMS"))
  const cells = upstreams.flatMap((u) =>
    settings.concurrency.flatMap((c) =>
      stages.flatMap((stage) =>
        workers.map((w) => ({ worker: w, cell: { upstream: u, stage, concurrency: c } })),
      ),
    ),
  )
  const samples = new Map<string, CellResult[]>()
  const key = (w: string, u: string, c: number, s: string) => `${w}:${u}@${c}:${s}`
  for (let round = 0; round < settings.rounds; round++) {
    // Rotate the order each round (the bench kit's interleaving), cell by cell.
    for (let i = 0; i < cells.length; i++) {
      const { worker, cell } = cells[(i + round * 3) % cells.length]!
      const result = await worker.run({ ...cell, ms: settings.roundMs })
      const k = key(worker.name, cell.upstream, cell.concurrency, cell.stage)
      samples.set(k, [...(samples.get(k) ?? []), result])
    }
  }

  console.log(
    heading(
      "Relayed call, gateway side after the edge: CPU per call by stage (in process)",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; CPU is the worker's user + system time per call`,
    ),
  )
  for (const w of workers) {
    const rows: (string | number)[][] = []
    for (const u of upstreams)
      for (const c of settings.concurrency) {
        let previous: CellResult[] | undefined
        for (const s of stages) {
          const mine = samples.get(key(w.name, u, c, s))!
          const cpu = median(mine.map((r) => r.cpuPerCall))
          const share =
            previous === undefined ? cpu : median(mine.map((r, i) => r.cpuPerCall - previous![i]!.cpuPerCall))
          rows.push([
            u,
            c,
            s,
            fmt(median(mine.map((r) => r.throughput))),
            fmt(median(mine.map((r) => r.p50)), 3),
            fmt(cpu, 1),
            fmt(share, 1),
            ...(mine[0]!.bytesPerCall === undefined ? [] : [fmt(median(mine.map((r) => r.bytesPerCall!)))]),
          ])
          previous = mine
        }
      }
    console.log(`\n**${w.name === "this" ? "This checkout" : `Base (${baseCheckout})`}**\n`)
    console.log(
      markdownTable(
        [
          "upstream",
          "c",
          "stage",
          "calls/s",
          "p50 ms",
          "CPU µs/call",
          "stage's own µs (minus the one before)",
          ...(rows[0]!.length > 7 ? ["heap bytes/call"] : []),
        ],
        rows,
      ),
    )
  }
  if (workers.length === 2) {
    const rows: (string | number)[][] = []
    for (const u of upstreams)
      for (const c of settings.concurrency)
        for (const s of stages) {
          const mine = samples.get(key("this", u, c, s))!
          const base = samples.get(key("base", u, c, s))!
          const ratios = mine.map((r, i) => r.cpuPerCall / base[i]!.cpuPerCall)
          rows.push([
            u,
            c,
            s,
            `${fmt(median(base.map((r) => r.cpuPerCall)), 1)} → ${fmt(median(mine.map((r) => r.cpuPerCall)), 1)}`,
            `${fmt(median(ratios), 2)} (${ratios.map((r) => fmt(r, 2)).join(", ")})`,
          ])
        }
    console.log("\n**This checkout against the base, same rounds**\n")
    console.log(
      markdownTable(["upstream", "c", "stage", "CPU µs/call, base → this", "this ÷ base (rounds)"], rows),
    )
  }
} finally {
  for (const w of workers) w.child.send({ stop: true })
  await Promise.all(
    workers.map(
      (w) => new Promise<void>((ok) => (w.child.exitCode !== null ? ok() : w.child.once("exit", () => ok()))),
    ),
  )
  upstream.kill()
}
