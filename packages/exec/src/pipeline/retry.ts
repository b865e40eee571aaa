/**
 * Step 7, retry with exponential backoff and jitter, only for tools annotated idempotent or read-only
 * (or as configured), only for failures that may be transient, and never past the deadline.
 *
 * @since 0.1.0
 */
import { isToolError, type Tool } from "@toolplane/foundation"
import type { RetryOptions } from "../options.js"
import { sleep } from "./abort.js"

/**
 * A resolved retry policy for one tool.
 *
 * @since 0.1.0
 */
export interface RetryPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly jitter: number
}

/**
 * Whether a failure may be transient, as the error itself says (`retryable`: foundation's
 * `ExecutionFailed` unless marked otherwise, `BackendUnavailable` and `RateLimited`).
 *
 * @since 0.1.0
 */
export const isRetryable = (error: unknown): boolean => isToolError(error) && error.retryable

/**
 * Whether a tool's annotations make it safe to repeat.
 *
 * @since 0.1.0
 */
export const isIdempotent = (tool: Tool): boolean =>
  tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true

/**
 * The retry policy of a tool, or `undefined` when it must not be retried.
 *
 * @since 0.1.0
 */
export const retryPolicyFor = (
  tool: Tool,
  options: RetryOptions | false | undefined,
): RetryPolicy | undefined => {
  if (options === false) return undefined
  const o = options ?? {}
  const override = o.tools?.[tool.id]
  if (override === false) return undefined
  if (override === undefined) {
    const when = o.when ?? "idempotent"
    const eligible =
      when === "always"
        ? true
        : when === "never"
          ? false
          : when === "idempotent"
            ? isIdempotent(tool)
            : when(tool)
    if (!eligible) return undefined
  }
  const merged = typeof override === "object" ? { ...o, ...override } : o
  const policy: RetryPolicy = {
    maxAttempts: Math.max(1, Math.floor(merged.maxAttempts ?? 3)),
    baseDelayMs: Math.max(0, merged.baseDelayMs ?? 100),
    maxDelayMs: Math.max(0, merged.maxDelayMs ?? 5000),
    jitter: Math.min(1, Math.max(0, merged.jitter ?? 0.5)),
  }
  return policy.maxAttempts > 1 ? policy : undefined
}

/**
 * The delay before attempt `attempt + 1`: `base * 2^(attempt-1)` capped at `maxDelayMs`, of which the
 * `jitter` fraction is randomized.
 *
 * @since 0.1.0
 */
export const backoffMs = (
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number => {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  return exp * (1 - policy.jitter * random())
}

/**
 * Continues a call whose first attempt failed with `firstError`: retries `attempt` until it succeeds,
 * fails with a non-retryable error, runs out of attempts, or the next delay would pass the deadline
 * (then the last failure is thrown). The first attempt runs inline in the pipeline, so retry costs
 * nothing until something fails. `onAttempt` is told the number of each further attempt.
 *
 * @since 0.1.0
 */
export const retryAfter = async <A>(
  policy: RetryPolicy,
  firstError: unknown,
  attempt: () => Promise<A>,
  options: {
    readonly toolId: string
    readonly signal: AbortSignal | undefined
    readonly deadline: number | undefined
    readonly onAttempt?: ((n: number) => void) | undefined
  },
): Promise<A> => {
  let error = firstError
  for (let n = 2; ; n++) {
    if (n > policy.maxAttempts || !isRetryable(error) || options.signal?.aborted) throw error
    const delay = backoffMs(policy, n - 1)
    if (options.deadline !== undefined && Date.now() + delay >= options.deadline) throw error
    await sleep(delay, options.signal, options.toolId)
    options.onAttempt?.(n)
    try {
      return await attempt()
    } catch (next) {
      error = next
    }
  }
}
