/**
 * Interleaved rounds: every round runs each case once, in an order rotated by one per round, so drift
 * and background load on a shared machine hit all cases alike and no case always runs first.
 *
 * @since 0.1.0
 */
import { median } from "./stats.js"

/**
 * Runs `run(case, round)` for `rounds` rounds over `cases`, rotating the order each round.
 *
 * @since 0.1.0
 */
export const interleaved = async <C>(
  rounds: number,
  cases: readonly C[],
  run: (item: C, round: number) => Promise<void> | void,
): Promise<void> => {
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < cases.length; i++) await run(cases[(i + round) % cases.length]!, round)
}

/**
 * One case of a per-call comparison: a function called over and over. Sync functions are called in a
 * plain loop; a function returning a promise is awaited call after call (sequential, one at a time).
 *
 * @since 0.1.0
 */
export interface BenchCase {
  readonly name: string
  readonly fn: () => unknown
}

/**
 * A case's measurements: µs per call in each round, and their median.
 *
 * @since 0.1.0
 */
export interface CaseResult {
  readonly name: string
  /** µs per call in each round, in round order. */
  readonly rounds: readonly number[]
  /** Median over the rounds of µs per call. */
  readonly usPerCall: number
  /** Calls per second at the median. */
  readonly opsPerSec: number
}

const isThenable = (x: unknown): x is PromiseLike<unknown> =>
  typeof x === "object" && x !== null && typeof (x as { then?: unknown }).then === "function"

/** Runs `fn` `n` times; returns elapsed ms. */
const timeBatch = async (fn: () => unknown, async: boolean, n: number): Promise<number> => {
  const start = performance.now()
  if (async) for (let i = 0; i < n; i++) await fn()
  else for (let i = 0; i < n; i++) fn()
  return performance.now() - start
}

/**
 * Measures each case's time per call in interleaved rounds of `roundMs` per case and returns the
 * results in the order of `cases`. Each case is first warmed up (`warmupMs`, default 200), which also
 * sizes its batches so the clock is read rarely against the calls it measures.
 *
 * @since 0.1.0
 */
export const compare = async (
  cases: readonly BenchCase[],
  options: { readonly rounds: number; readonly roundMs: number; readonly warmupMs?: number },
): Promise<CaseResult[]> => {
  const state = new Map<BenchCase, { async: boolean; batch: number; rounds: number[] }>()
  for (const c of cases) {
    const async = isThenable(c.fn())
    let calls = 0
    const warmupMs = options.warmupMs ?? 200
    const start = performance.now()
    let batch = 1
    while (performance.now() - start < warmupMs) {
      await timeBatch(c.fn, async, batch)
      calls += batch
      batch = Math.min(batch * 2, 4096)
    }
    const msPerCall = (performance.now() - start) / calls
    state.set(c, {
      async,
      batch: Math.max(1, Math.min(10_000, Math.floor(options.roundMs / 20 / msPerCall))),
      rounds: [],
    })
  }
  await interleaved(options.rounds, cases, async (c) => {
    const s = state.get(c)!
    let calls = 0
    let elapsed = 0
    while (elapsed < options.roundMs) {
      elapsed += await timeBatch(c.fn, s.async, s.batch)
      calls += s.batch
    }
    s.rounds.push((elapsed * 1000) / calls)
  })
  return cases.map((c) => {
    const rounds = state.get(c)!.rounds
    const usPerCall = median(rounds)
    return { name: c.name, rounds, usPerCall, opsPerSec: 1e6 / usPerCall }
  })
}

/**
 * How many times longer a call of `a` takes than a call of `b`: the median over rounds of the ratio
 * within each round (both measured under the same load), not the ratio of two medians.
 *
 * @since 0.1.0
 */
export const ratio = (a: CaseResult, b: CaseResult): number =>
  median(a.rounds.map((us, i) => us / b.rounds[i]!))
