/**
 * The prefetcher contract: what a runner configured with `prefetch` exposes as `runner.prefetch`, in a
 * plain (Promise-free, synchronous) form and an Effect form.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { PrefetchMessage } from "./messages.js"
import type { PrefetchOptions } from "./options.js"

/**
 * Counters of a prefetcher since it was created.
 *
 * @since 0.1.0
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
 * @since 0.1.0
 */
export interface Prefetcher {
  /** The counters so far. */
  stats(): PrefetchStats
  /** Drops the pending prefetches of one caller, or of all callers, aborting running ones. Returns how many. */
  invalidate(callerId?: string): number
  /**
   * A conversation message of one caller (`undefined`: calls without a caller id, used only with
   * `anonymous`). A user message starts a turn: the prefetcher may start the read-only calls its text
   * suggests while the model thinks, and learns from the calls that follow. Other roles are ignored.
   * Never throws; does nothing when the `messages` source is off or the prefetcher is closed.
   *
   * @since 0.1.0
   */
  observeMessage(callerId: string | undefined, message: PrefetchMessage): void
  /** Drops every prefetch and what was learned, and stops issuing new ones. */
  close(): void
}

/**
 * The Effect form of {@link Prefetcher}, and its Context tag: `const prefetcher = yield* EffectPrefetcher`
 * (provided by {@link prefetcherLayer}).
 *
 * @since 0.1.0
 */
export interface EffectPrefetcher {
  readonly stats: Effect.Effect<PrefetchStats>
  invalidate(callerId?: string): Effect.Effect<number>
  /** See {@link Prefetcher.observeMessage}. @since 0.1.0 */
  observeMessage(callerId: string | undefined, message: PrefetchMessage): Effect.Effect<void>
  readonly close: Effect.Effect<void>
}

/**
 * The {@link EffectPrefetcher} tag.
 *
 * @since 0.1.0
 */
export const EffectPrefetcher: Context.Service<EffectPrefetcher, EffectPrefetcher> =
  Context.Service<EffectPrefetcher>("@toolplane/exec/EffectPrefetcher")

const NO_STATS: PrefetchStats = Object.freeze({
  calls: 0,
  issued: 0,
  hits: 0,
  wasted: 0,
  cancelled: 0,
  invalidated: 0,
  skipped: 0,
  inFlight: 0,
  timeSavedMs: 0,
})

/** What {@link prefetcherLayer} provides: the options for the runner, and the runner's prefetcher once built. */
interface LayerPrefetcher extends EffectPrefetcher {
  readonly [PREFETCH_OPTIONS]: PrefetchOptions
  attach(prefetcher: Prefetcher): void
}

const PREFETCH_OPTIONS: unique symbol = Symbol.for("@toolplane/exec/prefetchOptions")

/**
 * The prefetch options a prefetcher from {@link prefetcherLayer} carries for the runner Layer built above
 * it, with the hook that hands it the runner's prefetcher; `undefined` for any other prefetcher.
 *
 * @since 0.1.0
 */
export const layerPrefetcher = (
  prefetcher: EffectPrefetcher,
): { readonly options: PrefetchOptions; attach(prefetcher: Prefetcher): void } | undefined =>
  PREFETCH_OPTIONS in prefetcher
    ? {
        options: (prefetcher as LayerPrefetcher)[PREFETCH_OPTIONS],
        attach: (p) => (prefetcher as LayerPrefetcher).attach(p),
      }
    : undefined

/**
 * A Layer providing {@link EffectPrefetcher}: provided below `toolRunnerLayer`, it turns speculative
 * prefetch on in that runner with these options (unless the runner's own options set `prefetch`, which
 * win), and the `EffectPrefetcher` it provides reads that runner's counters and drops its prefetches.
 * Until the runner is built (or without one, or with `prefetch: false` in its options) its counters are
 * zero.
 *
 * @example
 * ```ts
 * const App = toolRunnerLayer({ backends: [myBackend()] }).pipe(
 *   Layer.provideMerge(prefetcherLayer({ ttlMs: 2000 })),
 * )
 * const program = Effect.gen(function* () {
 *   const runner = yield* EffectToolRunner
 *   const prefetcher = yield* EffectPrefetcher
 *   yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" }, context: { callerId: "a" } })
 *   return yield* prefetcher.stats
 * })
 * ```
 * @since 0.1.0
 */
export const prefetcherLayer = (options: PrefetchOptions | true = true): Layer.Layer<EffectPrefetcher> =>
  Layer.sync(EffectPrefetcher, () => {
    let attached: Prefetcher | undefined
    const prefetcher: LayerPrefetcher = {
      [PREFETCH_OPTIONS]: options === true ? {} : options,
      attach: (p) => {
        attached = p
      },
      stats: Effect.sync(() => attached?.stats() ?? NO_STATS),
      invalidate: (callerId) => Effect.sync(() => attached?.invalidate(callerId) ?? 0),
      observeMessage: (callerId, message) => Effect.sync(() => attached?.observeMessage(callerId, message)),
      close: Effect.sync(() => attached?.close()),
    }
    return prefetcher
  })

/**
 * The Effect form of a plain prefetcher.
 *
 * @since 0.1.0
 */
export const prefetcherToEffect = (prefetcher: Prefetcher): EffectPrefetcher => ({
  stats: Effect.sync(() => prefetcher.stats()),
  invalidate: (callerId) => Effect.sync(() => prefetcher.invalidate(callerId)),
  observeMessage: (callerId, message) => Effect.sync(() => prefetcher.observeMessage(callerId, message)),
  close: Effect.sync(() => prefetcher.close()),
})

/**
 * The plain form of an Effect prefetcher.
 *
 * @since 0.1.0
 */
export const prefetcherFromEffect = (prefetcher: EffectPrefetcher): Prefetcher => ({
  stats: () => Effect.runSync(prefetcher.stats),
  invalidate: (callerId) => Effect.runSync(prefetcher.invalidate(callerId)),
  observeMessage: (callerId, message) => Effect.runSync(prefetcher.observeMessage(callerId, message)),
  close: () => Effect.runSync(prefetcher.close),
})
