/**
 * Step 5, limits: per-tool and per-backend concurrency caps, per-tool, per-backend and per-host rate
 * limits (token buckets). Each limit either waits or refuses with `RateLimited`, as configured. Limits
 * are shared state that outlives registry changes; a tool's entry only points at the ones covering it.
 *
 * @since 0.1.0
 */
import type { Enricher } from "@toolplane/foundation"
import { type ConcurrencyOptions, Semaphore } from "../concurrency.js"
import type { LimitsOptions, ScopeLimits } from "../options.js"
import { TokenBucket } from "../tokenBucket.js"

/**
 * The limits covering one tool. `undefined` on an entry when nothing covers it.
 *
 * @since 0.1.0
 */
export interface EntryLimits {
  readonly buckets: readonly TokenBucket[]
  readonly semaphores: readonly Semaphore[]
  /** Finds the per-host bucket of a call from its arguments, when hosts are configured. */
  readonly hostBucket: ((args: Readonly<Record<string, unknown>>) => TokenBucket | undefined) | undefined
}

const concurrencyOptions = (value: number | ConcurrencyOptions): ConcurrencyOptions =>
  typeof value === "number" ? { max: value } : value

/**
 * Every limit of a runner, created lazily and kept by key.
 *
 * @since 0.1.0
 */
export class LimitSet {
  readonly #options: LimitsOptions
  readonly #semaphores = new Map<string, Semaphore>()
  readonly #buckets = new Map<string, TokenBucket>()

  constructor(options: LimitsOptions = {}) {
    this.#options = options
  }

  /** A concurrency cap by key (`tool:ID` or `backend:NAME`), for inspection. */
  semaphore(key: string): Semaphore | undefined {
    return this.#semaphores.get(key)
  }

  /** A token bucket by key (`tool:ID`, `backend:NAME` or `host:HOST`), for inspection. */
  bucket(key: string): TokenBucket | undefined {
    return this.#buckets.get(key)
  }

  #semaphoreFor(key: string, scope: ScopeLimits | undefined): Semaphore | undefined {
    if (scope?.concurrency === undefined) return undefined
    let s = this.#semaphores.get(key)
    if (!s) this.#semaphores.set(key, (s = new Semaphore(key, concurrencyOptions(scope.concurrency))))
    return s
  }

  #bucketFor(key: string, scope: ScopeLimits | undefined): TokenBucket | undefined {
    if (scope?.rateLimit === undefined) return undefined
    let b = this.#buckets.get(key)
    if (!b) this.#buckets.set(key, (b = new TokenBucket(key, scope.rateLimit)))
    return b
  }

  #hostBucket(host: string): TokenBucket | undefined {
    const key = `host:${host}`
    let b = this.#buckets.get(key)
    if (b) return b
    const options = this.#options.hosts?.[host]
    if (!options) return undefined
    this.#buckets.set(key, (b = new TokenBucket(key, options)))
    return b
  }

  /** The limits covering a tool served by `backend`, given the enrichers that apply to it. */
  forTool(toolId: string, backend: string, enrichers: readonly Enricher[]): EntryLimits | undefined {
    const toolScope = this.#options.tools?.[toolId]
    const backendScope = this.#options.backends?.[backend]
    const buckets = [
      this.#bucketFor(`tool:${toolId}`, toolScope),
      this.#bucketFor(`backend:${backend}`, backendScope),
    ].filter((b): b is TokenBucket => b !== undefined)
    const semaphores = [
      this.#semaphoreFor(`backend:${backend}`, backendScope),
      this.#semaphoreFor(`tool:${toolId}`, toolScope),
    ].filter((s): s is Semaphore => s !== undefined)
    let hostBucket: EntryLimits["hostBucket"]
    if (this.#options.hosts && Object.keys(this.#options.hosts).length > 0) {
      const staticHost =
        enrichers.map((e) => e.valueModel(toolId)?.rateLimitHost).find((h) => h !== undefined) ??
        this.#options.toolHosts?.[toolId]
      hostBucket = (args) => {
        let host: string | undefined
        for (let i = 0; i < enrichers.length && host === undefined; i++)
          host = enrichers[i]!.rateLimitHost(toolId, args)
        host ??= staticHost
        return host === undefined ? undefined : this.#hostBucket(host)
      }
    }
    if (buckets.length === 0 && semaphores.length === 0 && hostBucket === undefined) return undefined
    return { buckets, semaphores, hostBucket }
  }
}

/**
 * Takes a token from every bucket and a slot from every cap covering the call, in a fixed order, and
 * returns the function that gives the slots back. On refusal or abort, what was taken is given back.
 *
 * @since 0.1.0
 */
export const acquireLimits = async (
  limits: EntryLimits,
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal | undefined,
  toolId: string,
): Promise<() => void> => {
  const host = limits.hostBucket?.(args)
  const taken: TokenBucket[] = []
  const held: Semaphore[] = []
  try {
    for (const bucket of host ? [...limits.buckets, host] : limits.buckets) {
      const wait = bucket.take(signal, toolId)
      if (wait) await wait
      taken.push(bucket)
    }
    for (const semaphore of limits.semaphores) {
      const wait = semaphore.acquire(signal, toolId)
      if (wait) await wait
      held.push(semaphore)
    }
  } catch (error) {
    for (const s of held) s.release()
    for (const b of taken) b.refund()
    throw error
  }
  return () => {
    for (const s of held) s.release()
  }
}
