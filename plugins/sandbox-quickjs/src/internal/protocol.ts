/**
 * Messages between the sandbox (parent thread) and its worker threads. Data only: strings and numbers.
 * Host calls and their answers travel through two shared rings (`ring.ts`) when they fit, otherwise as
 * the messages below. Parent to worker goes through the worker's inbox port or the answer ring, plus a
 * shared counter the worker blocks on (`Atomics.wait`, slot 0); worker to parent through `parentPort` or
 * the call ring plus a second counter (slot 1) the parent waits on with `Atomics.waitAsync`.
 */

/** Limits of one run, resolved to numbers. */
export interface RunLimits {
  readonly wallTimeMs: number
  readonly memoryBytes: number
  readonly maxOutputBytes: number
  readonly maxHostCalls: number
  readonly stackBytes: number
  /** Running-time budget; `0` for none. */
  readonly cpuTimeMs: number
  /** Cap on one host call's arguments (UTF-8 bytes of their JSON). */
  readonly maxArgumentBytes: number
}

/** Parent to worker. */
export type ToWorker =
  | {
      readonly type: "run"
      readonly id: number
      readonly code: string
      /** The host functions' names, as a JSON array. */
      readonly names: string
      readonly limits: RunLimits
    }
  /** A host call's answer: `callId` positive with the value's JSON, negated with the error's JSON. */
  | { readonly type: "reply"; readonly id: number; readonly callId: number; readonly json: string }
  | { readonly type: "abort"; readonly id: number; readonly reason: "aborted" }

/** How a run failed, as data. */
export type WireFailure =
  | { readonly tag: "SandboxTimeout" }
  | { readonly tag: "SandboxMemory" }
  | { readonly tag: "SandboxLimit"; readonly limit: "output" | "calls" | "cpu" | "arguments" }
  | { readonly tag: "SandboxError"; readonly json: string }
  | { readonly tag: "SandboxCrashed"; readonly reason: string }
  | { readonly tag: "Cancelled" }

/** Worker to parent. */
export type FromWorker =
  /** Started, or done with the previous run's teardown: a prepared engine waits for the next run. */
  | { readonly type: "ready" }
  /** The worker cannot run `id` (its engine is not trustworthy any more): run it elsewhere, discard this worker. */
  | { readonly type: "bounce"; readonly id: number; readonly reason: string }
  /** Host calls the program made in one turn: JSON `[[callId, functionIndex, args], ...]`. */
  | { readonly type: "calls"; readonly id: number; readonly json: string }
  | {
      readonly type: "done"
      readonly id: number
      readonly logs: readonly string[]
      readonly hostCalls: number
      readonly result?: string
      readonly failure?: WireFailure
      readonly retire?: boolean
    }
