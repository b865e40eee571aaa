/**
 * The one set of environment variables every benchmark reads.
 *
 * @since 0.1.0
 */

/**
 * Run settings of a benchmark: its own defaults, overridden by the environment.
 *
 * - `BENCH_ROUNDS`: interleaved rounds (each round runs every case once, in a rotated order);
 * - `BENCH_ROUND_MS`: how long each case runs in each round, in milliseconds;
 * - `BENCH_CONCURRENCY`: comma-separated concurrency levels, for load benchmarks;
 * - `BENCH_WARMUP_CALLS`: calls each contender of a load benchmark makes before its first measured round
 *   (0 or more; a steady-state warm-up: JIT-compiled code and pools settle before anything is measured).
 *
 * @since 0.1.0
 */
export interface BenchSettings {
  readonly rounds: number
  readonly roundMs: number
  readonly concurrency: readonly number[]
  /**
   * Calls each contender makes before its first measured round (`BENCH_WARMUP_CALLS`; 0 when the benchmark
   * gives no default). Benchmarks that do not warm up by calls ignore it.
   *
   * @since 0.1.0
   */
  readonly warmupCalls: number
}

/** Names earlier benchmarks read, and what replaces them. */
const RETIRED: Record<string, string> = {
  BENCH_STACK_ROUNDS: "BENCH_ROUNDS",
  BENCH_STACK_CALLS: "BENCH_ROUND_MS",
  BENCH_SECONDS: "BENCH_ROUND_MS (milliseconds)",
}

const positiveInteger = (name: string, text: string): number => {
  const n = Number(text)
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive integer, got "${text}"`)
  return n
}

const nonNegativeInteger = (name: string, text: string): number => {
  const n = Number(text)
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new RangeError(`${name} must be a non-negative integer, got "${text}"`)
  return n
}

/**
 * Reads the settings: `defaults` unless the environment sets them. Fails with a `RangeError` naming the
 * variable when a value is not a positive integer (`BENCH_WARMUP_CALLS`: not a non-negative one), and when a retired variable (`BENCH_STACK_ROUNDS`,
 * `BENCH_STACK_CALLS`, `BENCH_SECONDS`) is set, naming its replacement, so no run silently ignores a
 * setting.
 *
 * @since 0.1.0
 */
export const benchSettings = (
  defaults: {
    readonly rounds: number
    readonly roundMs: number
    readonly concurrency?: readonly number[]
    readonly warmupCalls?: number
  },
  env: NodeJS.ProcessEnv = process.env,
): BenchSettings => {
  for (const [old, replacement] of Object.entries(RETIRED))
    if (env[old] !== undefined) throw new RangeError(`${old} is no longer read; set ${replacement}`)
  const read = (name: string, fallback: number) =>
    env[name] === undefined || env[name] === "" ? fallback : positiveInteger(name, env[name]!)
  const concurrencyText = env.BENCH_CONCURRENCY
  return {
    rounds: read("BENCH_ROUNDS", defaults.rounds),
    roundMs: read("BENCH_ROUND_MS", defaults.roundMs),
    concurrency:
      concurrencyText === undefined || concurrencyText === ""
        ? (defaults.concurrency ?? [1])
        : concurrencyText.split(",").map((c) => positiveInteger("BENCH_CONCURRENCY", c)),
    warmupCalls:
      env.BENCH_WARMUP_CALLS === undefined || env.BENCH_WARMUP_CALLS === ""
        ? (defaults.warmupCalls ?? 0)
        : nonNegativeInteger("BENCH_WARMUP_CALLS", env.BENCH_WARMUP_CALLS),
  }
}
