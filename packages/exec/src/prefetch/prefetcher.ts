/**
 * The prefetcher contract: what a runner configured with `prefetch` exposes as `runner.prefetch`, in a
 * plain (Promise-free, synchronous) form and an Effect form.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"

/**
 * Counters of a prefetcher since it was created.
 *
 * @since 0.2.0
 */
export interface PrefetchStats {
  /** Real calls seen (speculative calls not counted). */
  readonly calls: number
  /** Speculative calls started. */
  readonly issued: number
  /** Real calls served from a prefetch. */
  readonly hits: number
  /** Speculative calls whose result was never served (expired, invalidated, failed). */
  readonly wasted: number
  /** Speculative calls aborted while running (expired or invalidated). */
  readonly cancelled: number
  /** Prefetches dropped because their caller called a tool that is not read-only. */
  readonly invalidated: number
  /** Proposals refused by a safety rule or a cap (approval, not read-only, rate limit, validation, caps). */
  readonly skipped: number
  /** Speculative calls running now. */
  readonly inFlight: number
  /** Tool-wait time saved for the callers: per hit, how long the prefetch had already been running (ms). */
  readonly timeSavedMs: number
}

/**
 * A runner's prefetcher (plain form).
 *
 * @since 0.2.0
 */
export interface Prefetcher {
  /** The counters so far. */
  stats(): PrefetchStats
  /** Drops the pending prefetches of one caller, or of all callers, aborting running ones. Returns how many. */
  invalidate(callerId?: string): number
  /** Drops every prefetch and what was learned, and stops issuing new ones. */
  close(): void
}

/**
 * The Effect form of {@link Prefetcher}.
 *
 * @since 0.2.0
 */
export interface EffectPrefetcher {
  readonly stats: Effect.Effect<PrefetchStats>
  invalidate(callerId?: string): Effect.Effect<number>
  readonly close: Effect.Effect<void>
}

/**
 * The Effect form of a plain prefetcher.
 *
 * @since 0.2.0
 */
export const prefetcherToEffect = (prefetcher: Prefetcher): EffectPrefetcher => ({
  stats: Effect.sync(() => prefetcher.stats()),
  invalidate: (callerId) => Effect.sync(() => prefetcher.invalidate(callerId)),
  close: Effect.sync(() => prefetcher.close()),
})

/**
 * The plain form of an Effect prefetcher.
 *
 * @since 0.2.0
 */
export const prefetcherFromEffect = (prefetcher: EffectPrefetcher): Prefetcher => ({
  stats: () => Effect.runSync(prefetcher.stats),
  invalidate: (callerId) => Effect.runSync(prefetcher.invalidate(callerId)),
  close: () => Effect.runSync(prefetcher.close),
})
