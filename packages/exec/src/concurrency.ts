/**
 * A counting semaphore for concurrency caps. Acquiring is synchronous when a slot is free (no Promise,
 * no allocation); otherwise the caller either waits in FIFO order or is refused with
 * {@link RateLimited}, as configured.
 *
 * @since 0.1.0
 */
import { RateLimited } from "@toolplane/foundation"
import { abortError } from "./pipeline/abort.js"

/**
 * How a concurrency cap behaves when it is full.
 *
 * @since 0.1.0
 */
export interface ConcurrencyOptions {
  /** Calls allowed in flight at once. */
  readonly max: number
  /** `"wait"` (default) queues the call; `"reject"` fails it with {@link RateLimited}. */
  readonly mode?: "wait" | "reject"
  /** Longest queue before further calls are refused with {@link RateLimited}. Default unbounded. */
  readonly maxQueue?: number
}

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
  signal: AbortSignal | undefined
  onAbort: (() => void) | undefined
  done: boolean
}

/**
 * A counting semaphore.
 *
 * @example
 * ```ts
 * const cap = new Semaphore("tool:db/query", { max: 4 })
 * const waiting = cap.acquire()
 * if (waiting) await waiting
 * try {
 *   // ... the guarded work
 * } finally {
 *   cap.release()
 * }
 * ```
 * @since 0.1.0
 */
export class Semaphore {
  readonly key: string
  readonly max: number
  readonly mode: "wait" | "reject"
  readonly maxQueue: number
  #active = 0
  #queue: Waiter[] = []
  #head = 0
  #live = 0

  constructor(key: string, options: ConcurrencyOptions) {
    if (!(options.max >= 1)) throw new RangeError(`concurrency max for ${key} must be at least 1`)
    this.key = key
    this.max = Math.floor(options.max)
    this.mode = options.mode ?? "wait"
    this.maxQueue = options.maxQueue ?? Number.POSITIVE_INFINITY
  }

  /** Calls currently holding a slot. */
  get active(): number {
    return this.#active
  }

  /** Calls waiting for a slot (cancelled waiters no longer count). */
  get waiting(): number {
    return this.#live
  }

  /**
   * Takes a slot. Returns `undefined` when one was free; otherwise a Promise that resolves once a slot is
   * handed over, or rejects with {@link RateLimited} (full, in `"reject"` mode or over `maxQueue`) or the
   * abort reason of `signal`. Throws {@link RateLimited} synchronously in `"reject"` mode.
   */
  acquire(signal?: AbortSignal, toolId = ""): Promise<void> | undefined {
    if (signal?.aborted) throw abortError(signal, toolId)
    if (this.#active < this.max) {
      this.#active++
      return undefined
    }
    if (this.mode === "reject" || this.waiting >= this.maxQueue)
      throw new RateLimited({ key: `${this.key} (concurrency ${this.max})` })
    if (signal?.aborted) return Promise.reject(abortError(signal, toolId))
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, done: false }
      if (signal) {
        waiter.onAbort = () => {
          if (waiter.done) return
          waiter.done = true
          this.#live--
          reject(abortError(signal, toolId))
        }
        signal.addEventListener("abort", waiter.onAbort, { once: true })
      }
      this.#queue.push(waiter)
      this.#live++
    })
  }

  /** Gives a slot back, handing it to the longest-waiting caller. */
  release(): void {
    while (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head]!
      this.#queue[this.#head++] = undefined as unknown as Waiter
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head)
        this.#head = 0
      }
      if (waiter.done) continue
      waiter.done = true
      this.#live--
      if (waiter.onAbort) waiter.signal!.removeEventListener("abort", waiter.onAbort)
      waiter.resolve()
      return
    }
    this.#active--
  }
}
