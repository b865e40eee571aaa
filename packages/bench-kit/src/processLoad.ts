/**
 * Load against another process and the CPU it spends: spawn a server process and wait for the line that
 * names its address, run a closed loop against it while reading that process's CPU time from `/proc`,
 * compare two processes' CPU per call, stop them. What the gateway, relay and server-transport benchmarks
 * of the CLI and the MCP plugin share.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closedLoop, type LoadResults, type LoadSample } from "./load.js"
import { processCpuUs } from "./procCpu.js"
import { fmt, markdownTable } from "./report.js"
import { median } from "./stats.js"

/**
 * A load sample with the CPU time per call (µs, user + system) of one process; NaN without `/proc`.
 *
 * @since 0.1.0
 */
export interface CpuLoadSample extends LoadSample {
  readonly cpuPerCall: number
}

/**
 * Spawns `node <args>` and resolves once its `stream` output matches `pattern` (its first group is
 * `match`); rejects with the output so far when the process exits first or after `timeoutMs`.
 *
 * @since 0.1.0
 */
export const spawnNodeUntil = (
  args: readonly string[],
  options: {
    readonly pattern: RegExp
    readonly stream?: "stdout" | "stderr"
    readonly cwd?: string
    readonly env?: NodeJS.ProcessEnv
    readonly timeoutMs?: number
    /** Where the other output stream goes. Default `"inherit"`. */
    readonly otherStream?: "inherit" | "ignore"
  },
): Promise<{ readonly child: ChildProcess; readonly match: string }> =>
  new Promise((resolve, reject) => {
    const stream = options.stream ?? "stdout"
    const other = options.otherStream ?? "inherit"
    const child = spawn(process.execPath, [...args], {
      stdio: ["pipe", stream === "stdout" ? "pipe" : other, stream === "stderr" ? "pipe" : other],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      env: { ...process.env, ...options.env },
    })
    let seen = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`no ${options.pattern} after ${options.timeoutMs ?? 60_000} ms: ${seen.slice(-2000)}`))
    }, options.timeoutMs ?? 60_000)
    child[stream]!.on("data", (chunk: Buffer) => {
      seen = (seen + chunk.toString("utf8")).slice(-100_000)
      const match = options.pattern.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve({ child, match: match[1] ?? match[0] })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`process exited (${code}) before ${options.pattern}: ${seen.slice(-2000)}`))
    })
  })

/**
 * Stops a process: SIGTERM, then SIGKILL after `graceMs` (default 5 s); resolves once it exited.
 *
 * @since 0.1.0
 */
export const stopProcess = (child: ChildProcess, graceMs = 5_000): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    child.kill("SIGTERM")
  })

/** CPU µs per call between two readings of a process's CPU time; NaN without both or without calls. */
const cpuPerCallOf = (before: number | undefined, after: number | undefined, calls: number): number =>
  before === undefined || after === undefined || calls === 0 ? Number.NaN : (after - before) / calls

/**
 * A closed loop of `call` (after `warmupMs`, default 300, of the same load outside the measured window)
 * and the CPU time `pid` spent per completed call during it.
 *
 * @since 0.1.0
 */
export const loadWithCpu = async <A>(
  call: () => Promise<A>,
  options: {
    readonly pid: number | undefined
    readonly concurrency: number
    readonly ms: number
    readonly warmupMs?: number
    readonly check?: (result: A) => void
  },
): Promise<CpuLoadSample> => {
  const { concurrency } = options
  await closedLoop(call, { concurrency, ms: options.warmupMs ?? 300, warmupMs: 0 })
  const before = processCpuUs(options.pid)
  const sample = await closedLoop(call, {
    concurrency,
    ms: options.ms,
    warmupMs: 0,
    ...(options.check ? { check: options.check } : {}),
  })
  return { ...sample, cpuPerCall: cpuPerCallOf(before, processCpuUs(options.pid), sample.calls) }
}

/**
 * What {@link callsWithCpu} measured: how many calls, how long they took, and the CPU µs process `pid`
 * spent per call (NaN without `/proc` or without a pid).
 *
 * @since 0.1.0
 */
export interface CallsCpuSample {
  readonly calls: number
  readonly ms: number
  readonly cpuPerCall: number
}

/**
 * Makes exactly `calls` calls of `call` from `concurrency` workers (call, await, call again) and reports
 * the CPU time process `pid` spent per call meanwhile. A warm-up by a number of calls rather than by time
 * (`BENCH_WARMUP_CALLS`): every contender gets the same count however fast it is, so JIT-compiled code and
 * pools settle the same way; called in chunks, its samples show whether the CPU per call has levelled off.
 * `check` sees every result and throws on a wrong one.
 *
 * @since 0.1.0
 */
export const callsWithCpu = async <A>(
  call: () => Promise<A>,
  options: {
    readonly pid: number | undefined
    readonly calls: number
    readonly concurrency: number
    readonly check?: (result: A) => void
  },
): Promise<CallsCpuSample> => {
  let left = options.calls
  const worker = async () => {
    while (left > 0) {
      left--
      const result = await call()
      options.check?.(result)
    }
  }
  const before = processCpuUs(options.pid)
  const started = performance.now()
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, options.calls)) }, worker))
  const ms = performance.now() - started
  const cpuPerCall = cpuPerCallOf(before, processCpuUs(options.pid), options.calls)
  return { calls: options.calls, ms, cpuPerCall }
}

/**
 * The CPU-per-call table of a load comparison: per concurrency, each side's CPU µs per call (median of
 * rounds) and candidate ÷ baseline (median of per-round ratios).
 *
 * @since 0.1.0
 */
export const cpuTable = (
  results: LoadResults<CpuLoadSample>,
  labels: { readonly baseline: string; readonly candidate: string },
): string =>
  markdownTable(
    [
      "concurrency",
      `${labels.baseline} µs/call`,
      `${labels.candidate} µs/call`,
      "candidate ÷ baseline (rounds)",
    ],
    [...results].map(([concurrency, { baseline, candidate }]) => {
      const ratios = baseline.map((b, i) => candidate[i]!.cpuPerCall / b.cpuPerCall)
      return [
        concurrency,
        fmt(median(baseline.map((s) => s.cpuPerCall))),
        fmt(median(candidate.map((s) => s.cpuPerCall))),
        `${fmt(median(ratios), 2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
      ]
    }),
    [1, 2, 3],
  )
