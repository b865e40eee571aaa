/**
 * @toolplane/exec: the runner, the innermost tool service. The call pipeline (resolve, validate, enrich,
 * approve, limit, deadline, retry, validate output, trace), tool-result pagination with signed
 * continuation cursors and `callAll`, approvers, concurrency caps and token buckets; the Effect face
 * (`EffectToolRunner`, `toolRunnerLayer`, `EffectApprover`, `approverLayer`).
 *
 * Every export is listed here; the pipeline steps (`src/pipeline/`) are not part of the public API.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  type ApprovalDecision,
  type ApprovalRequest,
  type Approver,
  allowList,
  approveAll,
  approveNone,
  approverFromEffect,
  approverLayer,
  approverToEffect,
  approveWith,
  EffectApprover,
} from "./approver.js"
export { type CallAllOptions, type CallAllResult, callAll } from "./callAll.js"
// Sandbox contract and code mode
export {
  callPath,
  type DeclareOptions,
  declareToolset,
  schemaType,
  toolDeclaration,
} from "./codeMode/declaration.js"
export { type CodeExecutorOptions, callValue, codeExecutor } from "./codeMode/executor.js"
export { type ConcurrencyOptions, Semaphore } from "./concurrency.js"
export type {
  AuthorizeCall,
  LimitsOptions,
  RetryOptions,
  RetryWhen,
  RunnerOptions,
  ScopeLimits,
} from "./options.js"
export { canonicalJson } from "./prefetch/canonical.js"
export type { PrefetchMessage } from "./prefetch/messages.js"
export type { PrefetchLearningOptions, PrefetchMessageOptions, PrefetchOptions } from "./prefetch/options.js"
export {
  EffectPrefetcher,
  type Prefetcher,
  type PrefetchStats,
  prefetcherFromEffect,
  prefetcherLayer,
  prefetcherToEffect,
} from "./prefetch/prefetcher.js"
export { createRunner, type ToolRunner } from "./runner.js"
export { EffectToolRunner, toolRunnerLayer, toolRunnerToEffect } from "./runnerService.js"
export {
  defaultSandboxLimits,
  type EffectSandbox,
  type HostFunction,
  HostFunctionError,
  hostErrorJson,
  isSandboxRunError,
  type Sandbox,
  type SandboxLimits,
  type SandboxRunError,
  type SandboxRunRequest,
  type SandboxRunResult,
  sandboxFromEffect,
  sandboxToEffect,
} from "./sandbox/sandbox.js"
export { SandboxService } from "./sandbox/sandboxService.js"
export { type RateLimitOptions, TokenBucket } from "./tokenBucket.js"
