/**
 * A closed-loop load generator: `concurrency` workers call, await and call again for a fixed time.
 *
 * @since 0.1.0
 */
import { fmt, type Goal, markdownTable, verdict } from "./report.js"
import { interleaved } from "./rounds.js"
import { median, percentile } from "./stats.js"

/**
 * Throughput and latency of one load run.
 *
 * @since 0.1.0
 */
export interface LoadSample {
  readonly calls: number
  /** Completed calls per second. */
  readonly throughput: number
  /** Median latency, ms. */
  readonly p50: number
  /** 99th percentile latency, ms. */
  readonly p99: number
}

/**
 * Runs `call` from `concurrency` workers for `ms` milliseconds after `warmupMs` (default 300) of the
 * same load, and reports throughput and latency. `check` sees every result and throws on a wrong one.
 *
 * @since 0.1.0
 */
export const closedLoop = async <A>(
  call: () => Promise<A>,
  options: {
    readonly concurrency: number
    readonly ms: number
    readonly warmupMs?: number
    readonly check?: (result: A) => void
  },
): Promise<LoadSample> => {
  const { concurrency } = options
  const warmUntil = performance.now() + (options.warmupMs ?? 300)
  while (performance.now() < warmUntil) await Promise.all(Array.from({ length: concurrency }, call))
  const latencies: number[] = []
  const started = performance.now()
  const stopAt = started + options.ms
  const worker = async () => {
    while (performance.now() < stopAt) {
      const t0 = performance.now()
      const result = await call()
      latencies.push(performance.now() - t0)
      options.check?.(result)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  return {
    calls: latencies.length,
    throughput: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

/**
 * Load samples of a baseline and a candidate, per concurrency level, one sample per round each.
 *
 * @since 0.1.0
 */
export type LoadResults<S extends LoadSample = LoadSample> = ReadonlyMap<
  number,
  { readonly baseline: readonly S[]; readonly candidate: readonly S[] }
>

/**
 * Measures a baseline and a candidate at each concurrency level in interleaved rounds (every round runs
 * every level × side once, in a rotated order). `measure` runs one load and returns its sample (for
 * example {@link closedLoop} plus anything else the benchmark records).
 *
 * @since 0.1.0
 */
export const compareLoad = async <S extends LoadSample>(
  measure: (side: "baseline" | "candidate", concurrency: number) => Promise<S>,
  settings: { readonly rounds: number; readonly concurrency: readonly number[] },
): Promise<LoadResults<S>> => {
  const results = new Map<number, { baseline: S[]; candidate: S[] }>()
  for (const c of settings.concurrency) results.set(c, { baseline: [], candidate: [] })
  const cells = settings.concurrency.flatMap((concurrency) =>
    (["baseline", "candidate"] as const).map((side) => ({ concurrency, side })),
  )
  await interleaved(settings.rounds, cells, async ({ concurrency, side }) => {
    results.get(concurrency)![side].push(await measure(side, concurrency))
  })
  return results
}

/**
 * The standard table of a load comparison: per concurrency level, each side's throughput and p50/p99
 * latency (medians of rounds) and candidate ÷ baseline throughput (median of the per-round ratios, with
 * each round's ratio), plus a goal column when `goal` is given (a minimum throughput ratio).
 *
 * @since 0.1.0
 */
export const loadTable = (
  results: LoadResults,
  labels: { readonly baseline: string; readonly candidate: string },
  goal?: (concurrency: number) => Goal,
): string =>
  markdownTable(
    [
      "concurrency",
      `${labels.baseline} calls/s`,
      "p50 ms",
      "p99 ms",
      `${labels.candidate} calls/s`,
      "p50 ms",
      "p99 ms",
      "candidate ÷ baseline throughput (rounds)",
      ...(goal ? ["goal"] : []),
    ],
    [...results].map(([concurrency, { baseline: b, candidate: c }]) => {
      const med = (samples: readonly LoadSample[], key: "throughput" | "p50" | "p99") =>
        median(samples.map((s) => s[key]))
      const ratios = b.map((x, i) => c[i]!.throughput / x.throughput)
      const ratio = median(ratios)
      return [
        concurrency,
        fmt(med(b, "throughput")),
        fmt(med(b, "p50"), 2),
        fmt(med(b, "p99"), 2),
        fmt(med(c, "throughput")),
        fmt(med(c, "p50"), 2),
        fmt(med(c, "p99"), 2),
        `${fmt(ratio, 2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
        ...(goal ? [verdict(ratio, goal(concurrency))] : []),
      ]
    }),
    [1, 2, 3, 4, 5, 6, 7],
  )
