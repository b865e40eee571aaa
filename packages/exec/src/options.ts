/**
 * The options of {@link createRunner}.
 *
 * @since 0.1.0
 */
import type {
  Backend,
  CursorCodec,
  CursorKey,
  Enricher,
  ExecutionContext,
  SelectionPolicy,
  Tool,
} from "@toolplane/foundation"
import type { Approver } from "./approver.js"
import type { ConcurrencyOptions } from "./concurrency.js"
import type { PrefetchOptions } from "./prefetch/options.js"
import type { RateLimitOptions } from "./tokenBucket.js"

/**
 * Limits applying to one tool or to every tool of one backend.
 *
 * @since 0.1.0
 */
export interface ScopeLimits {
  /** Concurrency cap: a number (waiting mode) or full options. */
  readonly concurrency?: number | ConcurrencyOptions
  readonly rateLimit?: RateLimitOptions
}

/**
 * Concurrency caps and rate limits. Every limit is shared by all calls it covers (a backend's cap by all
 * its tools). Rate limits per host apply to calls whose host an enricher names
 * (`rateLimitHost` / `valueModel().rateLimitHost`) or that `toolHosts` maps.
 *
 * @since 0.1.0
 */
export interface LimitsOptions {
  /** Keyed by tool id. */
  readonly tools?: Readonly<Record<string, ScopeLimits>>
  /** Keyed by backend name. */
  readonly backends?: Readonly<Record<string, ScopeLimits>>
  /** Token buckets keyed by host name, e.g. `"api.github.com"`. */
  readonly hosts?: Readonly<Record<string, RateLimitOptions>>
  /** Static host of a tool, when no enricher names one. */
  readonly toolHosts?: Readonly<Record<string, string>>
}

/**
 * Which tools are retried.
 *
 * @since 0.1.0
 */
export type RetryWhen = "idempotent" | "always" | "never" | ((tool: Tool) => boolean)

/**
 * Retry with exponential backoff and jitter. Only failures that say they may be transient are retried
 * (the error's `retryable` property: `ExecutionFailed` unless marked otherwise, `BackendUnavailable`,
 * `RateLimited`), never invalid arguments, approval, cancellation, timeouts or invalid output, and never
 * past the call's deadline.
 *
 * @since 0.1.0
 */
export interface RetryOptions {
  /** Total attempts including the first. Default 3. */
  readonly maxAttempts?: number
  /** Delay before the second attempt; doubles each time. Default 100 ms. */
  readonly baseDelayMs?: number
  /** Largest delay. Default 5000 ms. */
  readonly maxDelayMs?: number
  /** Fraction of each delay that is randomized (0 = none, 1 = full jitter). Default 0.5. */
  readonly jitter?: number
  /**
   * Which tools: `"idempotent"` (default) retries tools annotated `idempotentHint` or `readOnlyHint`;
   * `"always"`, `"never"`, or a predicate.
   */
  readonly when?: RetryWhen
  /** Per-tool overrides by id; `false` disables retry for that tool, `true` forces the defaults. */
  readonly tools?: Readonly<Record<string, Omit<RetryOptions, "tools" | "when"> | boolean>>
}

/**
 * The options of {@link createRunner}.
 *
 * @since 0.1.0
 */
export interface RunnerOptions {
  /** Backends to register at start, in order (a conflict is decided by `selection`). */
  readonly backends?: readonly Backend[]
  /** Enrichers, applied in this order. */
  readonly enrichers?: readonly Enricher[]
  /** Decides calls to tools that require approval. Without one those calls fail with `ApprovalRequired`. */
  readonly approver?: Approver
  readonly limits?: LimitsOptions
  /** Retry policy; `false` disables retries. */
  readonly retry?: RetryOptions | false
  /** Timeout of a call when neither the caller's context nor the tool (`timeoutMs`) gives one. */
  readonly defaultTimeoutMs?: number
  /** Tools per listing page. Default 100. */
  readonly pageSize?: number
  /** Secret signing listing and continuation cursors (at least 16 bytes; 32 random bytes recommended). */
  readonly cursorSecret?: string | Uint8Array
  /** Signing keys for rotation (the first signs, all verify). Overrides `cursorSecret`. */
  readonly cursorKeys?: readonly CursorKey[]
  /** A ready codec. Overrides `cursorKeys` and `cursorSecret`. Without any, a random per-process key. */
  readonly cursorCodec?: CursorCodec
  /** Cursor time to live. Default 15 minutes. */
  readonly cursorTtlMs?: number
  /** Which backend serves an id claimed by several. Default `"error"`. */
  readonly selection?: SelectionPolicy
  /**
   * Hide tools whose category no enricher supports, when some enricher declares categories. Default true.
   */
  readonly hideUnsupportedCategories?: boolean
  /**
   * Emit an OpenTelemetry span per call through `@opentelemetry/api`. Default true; costs nothing until an
   * OpenTelemetry SDK registers a tracer provider.
   */
  readonly tracing?: boolean
  /**
   * Speculative prefetch of likely follow-up read-only calls (`true` for the defaults). Off by default.
   *
   * @since 0.1.0
   */
  readonly prefetch?: PrefetchOptions | boolean
  /**
   * Whether the caller of `context` may run the tool `toolId`. The runner asks it before anything else
   * for every call that reaches it (direct, through any middleware, a composite's targets, a code-mode
   * program's calls, a skill's steps, a speculative prefetch), and lists to each caller only the tools
   * it admits. A refused call fails with `ToolNotFound` whose suggestions name only admitted tools, so a
   * refusal does not tell that the tool exists. Default: every caller may run every tool.
   *
   * @example
   * ```ts
   * const runner = createRunner({
   *   backends: [],
   *   authorize: (toolId, ctx) => toolId.startsWith("public/") || ctx.callerId === "admin",
   * })
   * ```
   * @since 0.1.0
   */
  readonly authorize?: AuthorizeCall
}

/**
 * The runner's per-caller authorization: whether the caller of `context` may run `toolId` (the id the
 * runner serves, i.e. the backend's). Synchronous and cheap: it runs on every call.
 *
 * @since 0.1.0
 */
export type AuthorizeCall = (toolId: string, context: ExecutionContext) => boolean
