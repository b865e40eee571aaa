/**
 * A token bucket: `ratePerSecond` tokens refill continuously up to `burst`. A call takes one token; when
 * none is left the call waits for the next one or is refused with {@link RateLimited}, as configured.
 *
 * @since 0.1.0
 */
import { RateLimited } from "@toolplane/foundation"
import { abortError, sleep } from "./pipeline/abort.js"

/**
 * A rate limit.
 *
 * @since 0.1.0
 */
export interface RateLimitOptions {
  /** Sustained rate. */
  readonly ratePerSecond: number
  /** Bucket size: calls allowed in a burst. Default `max(1, ratePerSecond)`. */
  readonly burst?: number
  /** `"wait"` (default) delays the call until a token is due; `"reject"` fails it with {@link RateLimited}. */
  readonly mode?: "wait" | "reject"
  /** In `"wait"` mode, refuse instead when the wait would exceed this. Default unbounded. */
  readonly maxWaitMs?: number
}

/**
 * A token bucket.
 *
 * @example
 * ```ts
 * const bucket = new TokenBucket("host:api.github.com", { ratePerSecond: 10, burst: 20 })
 * const wait = bucket.take() // undefined when a token was available
 * if (wait) await wait
 * ```
 * @since 0.1.0
 */
export class TokenBucket {
  readonly key: string
  readonly ratePerMs: number
  readonly burst: number
  readonly mode: "wait" | "reject"
  readonly maxWaitMs: number
  readonly #now: () => number
  #tokens: number
  #last: number

  constructor(key: string, options: RateLimitOptions, now: () => number = performance.now.bind(performance)) {
    if (!(options.ratePerSecond > 0)) throw new RangeError(`ratePerSecond for ${key} must be positive`)
    this.key = key
    this.ratePerMs = options.ratePerSecond / 1000
    this.burst = Math.max(1, options.burst ?? options.ratePerSecond)
    this.mode = options.mode ?? "wait"
    this.maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY
    this.#now = now
    this.#tokens = this.burst
    this.#last = now()
  }

  /** Tokens available now (negative while callers wait for reserved tokens). */
  get tokens(): number {
    this.#refill()
    return this.#tokens
  }

  #refill(): void {
    const now = this.#now()
    const elapsed = now - this.#last
    if (elapsed > 0) {
      this.#tokens = Math.min(this.burst, this.#tokens + elapsed * this.ratePerMs)
      this.#last = now
    }
  }

  /**
   * Takes a token. Returns `undefined` when one was available; in `"wait"` mode a Promise that resolves
   * when the reserved token is due (rejecting with the abort error if `signal` aborts, which returns the
   * token). Throws {@link RateLimited} when the call is refused.
   */
  take(signal?: AbortSignal, toolId = ""): Promise<void> | undefined {
    if (signal?.aborted) throw abortError(signal, toolId)
    this.#refill()
    if (this.#tokens >= 1) {
      this.#tokens -= 1
      return undefined
    }
    const waitMs = (1 - this.#tokens) / this.ratePerMs
    if (this.mode === "reject" || waitMs > this.maxWaitMs)
      throw new RateLimited({ key: this.key, retryAfterMs: waitMs })
    if (signal?.aborted) return Promise.reject(abortError(signal, toolId))
    this.#tokens -= 1
    return sleep(waitMs, signal, toolId).catch((error) => {
      this.refund()
      throw error
    })
  }

  /** Gives a token back (a call that took one was refused by a later limit and never ran). */
  refund(): void {
    this.#refill()
    this.#tokens = Math.min(this.burst, this.#tokens + 1)
  }
}
