/**
 * The options of speculative prefetch (`createRunner({ prefetch })`).
 *
 * @since 0.1.0
 */
import type { Tool } from "@toolplane/foundation"

/**
 * Online learning of call patterns from each caller's own history.
 *
 * @since 0.1.0
 */
export interface PrefetchLearningOptions {
  /** Calls of the caller's history a follow-up's arguments may come from (1 = only the previous). Default 3. */
  readonly window?: number
  /**
   * Smallest estimated probability that a proposed call is the next one, with these exact arguments.
   * Default 0.25.
   */
  readonly minConfidence?: number
  /** Observations of a transition before it may be used. Default 2. */
  readonly minSupport?: number
}

/**
 * Prediction from the caller's conversation (`prefetcher.observeMessage`): when a user message arrives,
 * the read-only tools it suggests are started with arguments taken from its text and the caller's
 * history, while the model thinks.
 *
 * @since 0.1.0
 */
export interface PrefetchMessageOptions {
  /**
   * Smallest estimated probability that a proposed call is made during the message's turn, with these
   * exact arguments: the similarity-weighted share of the caller's most similar past turns (plus a
   * phantom one that made no call) that made it. Default 0.5 (chosen by two-fold cross-validation on
   * BFCL sessions, see the README).
   */
  readonly minConfidence?: number
  /** Calls after a message during which it still predicts. Default 16. */
  readonly horizon?: number
}

/**
 * Speculative prefetch: after a call completes, the runner starts the read-only calls the caller is likely
 * to make next, and serves the caller's matching call from that result.
 *
 * @since 0.1.0
 */
export interface PrefetchOptions {
  /** Use follow-up links of enrichers' value models (`valueModel().followUps`, `projectArgs`). Default true. */
  readonly declared?: boolean
  /** Learn which call follows which from each caller's history; `false` turns learning off. Default on. */
  readonly learning?: boolean | PrefetchLearningOptions
  /**
   * Predict from the messages passed to `prefetcher.observeMessage` (the user's turn, seen before the model
   * answers); `false` turns it off. Default on: it does nothing until a message is observed.
   */
  readonly messages?: boolean | PrefetchMessageOptions
  /** Speculative calls in flight at once, over all callers. Default 4. */
  readonly maxParallel?: number
  /** Speculative calls in flight at once per rate-limit host (`rateLimitHost`). Default 2. */
  readonly perHost?: number
  /** Largest number of prefetches proposed after one call. Default 4. */
  readonly maxPerCall?: number
  /**
   * Precision feedback: a rule (a declared link or a learned pattern from one tool to another) whose
   * prefetches for a caller are estimated to be served less often than this fraction is held back, with an
   * occasional probe (one proposal in 8). The estimate is the rule of succession, `(hits + 1) / (issued +
   * 2)`, so a rule starts at 1/2 and every unused prefetch lowers it. 0 turns it off. Default 0.5: a
   * prefetch is issued only while it is at least as likely to be used as wasted.
   */
  readonly minPrecision?: number
  /**
   * Spend the caller's surplus precision: a rule estimated below `minPrecision` (but at least `floor`) is
   * still issued while the caller's prefetches so far were served more often than `target` by at least
   * the expected shortfall of this one, counted in prefetches: hits − `target` × issued ≥ `target` −
   * estimate (pending prefetches count as unused). So the caller's overall precision is kept near `target`
   * while calls of less certain rules are served too. `false`: every rule below `minPrecision` is held
   * back. Default on, `floor` 0.25, `target` `minPrecision` + 0.05 (never below `minPrecision`).
   *
   * @since 0.1.0
   */
  readonly precisionBudget?: boolean | { readonly floor?: number; readonly target?: number }
  /**
   * How long a prefetched result waits for the caller's call, from its start (ms). When it expires unused it
   * is dropped and, if still running, its signal is aborted. Default 5000.
   */
  readonly ttlMs?: number
  /**
   * Also prefetch tools annotated `idempotentHint` but not `readOnlyHint`. Default false: such a tool
   * changes state, so an unasked call could be observed.
   */
  readonly idempotent?: boolean
  /**
   * Which tools are read-only: only those are prefetched, and a call of any other one is a write that
   * drops the caller's prefetches. Default: the tool's own `readOnlyHint` annotation. Give it when the
   * annotations come from someone you do not trust (an MCP server's are hints it chose itself); with
   * it, `idempotent` no longer reads `idempotentHint` either.
   *
   * @example
   * ```ts
   * const prefetch: PrefetchOptions = { readOnly: (tool, backend) => backend === "docs" }
   * ```
   * @since 0.1.0
   */
  readonly readOnly?: (tool: Tool, backend: string) => boolean
  /**
   * Prefetch for calls without a `callerId` (all of them then share one scope). Default false: without a
   * caller id, results could be served across callers.
   */
  readonly anonymous?: boolean
  /** Record OpenTelemetry metrics (`toolplane.prefetch.*`). Default true; free without a meter provider. */
  readonly metrics?: boolean
}
