/**
 * Errors of durable runs, members of foundation's `ToolError` family.
 *
 * @since 0.1.0
 */
import { TaggedToolError } from "@toolplane/foundation"

/**
 * No run with this id is in the store.
 *
 * @since 0.1.0
 */
export class RunNotFound extends TaggedToolError("RunNotFound")<{
  readonly runId: string
  /** The SQLite file, or the database URL without its password. */
  readonly storage: string
}> {
  readonly code = "RUN_NOT_FOUND"
  override get message(): string {
    return `No run "${this.runId}" in ${this.storage}`
  }
}

/**
 * An approval decision was given for a step that is not waiting for one (unknown step, already decided,
 * expired, or never needed approval).
 *
 * @since 0.1.0
 */
export class ApprovalNotPending extends TaggedToolError("ApprovalNotPending")<{
  readonly runId: string
  readonly stepId: string
  /** The step's state, or `"unknown"` when the run has no such step waiting. */
  readonly state: string
}> {
  readonly code = "APPROVAL_NOT_PENDING"
  override get message(): string {
    return `Step "${this.stepId}" of run "${this.runId}" is not waiting for approval (state: ${this.state})`
  }
}

/**
 * The run storage could not be opened: the SQLite file cannot be created or read, or the PostgreSQL
 * server cannot be reached or refused the connection or the schema.
 *
 * @since 0.1.0
 */
export class StorageUnavailable extends TaggedToolError("StorageUnavailable")<{
  /** The SQLite file, or the database URL without its password. */
  readonly storage: string
  readonly reason: string
}> {
  readonly code = "STORAGE_UNAVAILABLE"
  override get message(): string {
    return `Cannot open the run storage ${this.storage}: ${this.reason}`
  }
}

/**
 * A run cannot be cancelled because it already reached a final state.
 *
 * @since 0.2.0
 */
export class RunNotCancellable extends TaggedToolError("RunNotCancellable")<{
  readonly runId: string
  /** The run's final state: `completed`, `failed` or `cancelled`. */
  readonly state: string
}> {
  readonly code = "RUN_NOT_CANCELLABLE"
  override get message(): string {
    return `Run "${this.runId}" cannot be cancelled: it is already ${this.state}`
  }
}

/**
 * The runner was closed while a call waited for a run to settle. The run is not lost: it stays in the
 * store, and a runner sharing the store continues it from its next step (`show` or `resume` it there).
 *
 * @since 0.2.0
 */
export class RunnerClosed extends TaggedToolError("RunnerClosed")<{
  readonly runId: string
  /** The SQLite file, or the database URL without its password. */
  readonly storage: string
}> {
  readonly code = "RUNNER_CLOSED"
  override get message(): string {
    return `The runner closed while run "${this.runId}" was in progress; it continues on a runner sharing ${this.storage}`
  }
}
