/**
 * What a run file records: runs and their steps.
 *
 * @since 0.1.0
 */
import type { ToolResult } from "@toolplane/foundation"

/**
 * A run's state: `running` (executing, or interrupted by a crash until a runner resumes it),
 * `suspended` (a step waits for approval), `completed`, `failed`.
 *
 * @since 0.1.0
 */
export type RunStatus = "running" | "suspended" | "completed" | "failed" | "cancelled"

/**
 * A step's state. `started` after a crash means the step may or may not have run: it is re-executed only
 * when its tool is idempotent (`idempotentHint` or `readOnlyHint`), otherwise the run fails.
 *
 * @since 0.1.0
 */
export type StepStatus =
  | "awaiting_approval"
  | "approved"
  | "rejected"
  | "expired"
  | "started"
  | "completed"
  | "failed"

/**
 * A journaled step.
 *
 * @since 0.1.0
 */
export interface StepInfo {
  readonly stepId: string
  /** Position in the plan's order. */
  readonly index: number
  readonly tool: string
  readonly status: StepStatus
  /** The arguments the plan resolved for the step. */
  readonly arguments: Readonly<Record<string, unknown>>
  /** The arguments an approver replaced them with. */
  readonly approvedArguments?: Readonly<Record<string, unknown>>
  readonly result?: ToolResult
  /** Why a step was rejected or expired. */
  readonly reason?: string
  /** When a pending approval expires (ISO 8601). */
  readonly expiresAt?: string
  /** How many times the tool was called for this step. */
  readonly executions: number
  /**
   * When the step started waiting for approval (ISO 8601); absent for steps that never needed one and
   * for steps recorded before 0.2.0.
   *
   * @since 0.2.0
   */
  readonly requestedAt?: string
  /**
   * Through which channel the approval was decided: `"elicitation"`, `"cli"`, `"console"`, `"expiry"`,
   * `"api"` (the default of `RunStore.approve`/`reject`), or what the deciding program named.
   *
   * @since 0.2.0
   */
  readonly decidedBy?: string
}

/**
 * A journaled run.
 *
 * @since 0.1.0
 */
export interface RunInfo {
  readonly runId: string
  readonly skill: string
  readonly status: RunStatus
  /** For a failed run: the JSON form of the error that stopped it. */
  readonly error?: unknown
  /** The runner executing the run (its `runnerId`), while one does. */
  readonly owner?: string
  /**
   * When that runner's shard lease expires unless its heartbeat renews it (ISO 8601: its last heartbeat
   * in the engine's runner table plus the lease); after it, another runner takes the run over.
   */
  readonly leaseExpiresAt?: string
  readonly createdAt: string
  readonly updatedAt: string
  /** Steps that have a journal entry, in plan order. */
  readonly steps: readonly StepInfo[]
}
