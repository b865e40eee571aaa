/**
 * @toolplane/exec: the runner, the innermost tool service. The call pipeline (resolve, validate, enrich,
 * approve, limit, deadline, retry, validate output, trace), tool-result pagination with signed
 * continuation cursors and `callAll`, approvers, concurrency caps and token buckets.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export * from "./Approver.js"
export * from "./Concurrency.js"
export * from "./callAll.js"
// Sandbox contract and code mode (issue 17)
export { callPath, declareToolset, schemaType, toolDeclaration } from "./codeMode/declaration.js"
export { type CodeExecutorOptions, callValue, codeExecutor } from "./codeMode/executor.js"
export type * from "./options.js"
export { CALL_CURSOR_PURPOSE } from "./pipeline/continuation.js"
export { LimitSet } from "./pipeline/limits.js"
export {
  backoffMs,
  isIdempotent,
  isRetryable,
  type RetryPolicy,
  retryAfter,
  retryPolicyFor,
} from "./pipeline/retry.js"
export { tracingActive } from "./pipeline/trace.js"
// Speculative prefetch
export { canonicalJson } from "./prefetch/canonical.js"
export type { PrefetchLearningOptions, PrefetchOptions } from "./prefetch/options.js"
export {
  type EffectPrefetcher,
  type Prefetcher,
  type PrefetchStats,
  prefetcherFromEffect,
  prefetcherToEffect,
} from "./prefetch/Prefetcher.js"
export { declaredProposals, type Proposal, projectLink, resultJson } from "./prefetch/planner.js"
export * from "./Runner.js"
export * from "./RunnerService.js"
export {
  defaultSandboxLimits,
  type EffectSandbox,
  type HostFunction,
  hostErrorJson,
  isSandboxRunError,
  type Sandbox,
  type SandboxLimits,
  type SandboxRunError,
  type SandboxRunRequest,
  type SandboxRunResult,
  sandboxFromEffect,
  sandboxToEffect,
} from "./sandbox/Sandbox.js"
export { SandboxService } from "./sandbox/SandboxService.js"
export * from "./TokenBucket.js"
