/**
 * Where a served task's state lives, and what `tasks/get` answers about it (the tasks extension,
 * `io.modelcontextprotocol/tasks`): the contract between the task host and its sources (in memory, relayed
 * upstream tasks, a store shared by replicas). Apart from the host so that the serving options can name it.
 *
 * @since 0.2.0
 */
import type { TaskClaims } from "./taskHandles.js"

/** A task's status. @since 0.2.0 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled"

/** A client request a task waits on (the MRTR `InputRequest` shape). @since 0.2.0 */
export interface TaskInputRequest {
  readonly method: string
  readonly params: Record<string, unknown>
}

/** A task's state as `tasks/get` answers it (SEP-2663 `DetailedTask`, without `resultType`). @since 0.2.0 */
export interface DetailedTask {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly createdAt: string
  readonly lastUpdatedAt: string
  readonly ttlMs: number | null
  readonly pollIntervalMs?: number
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/**
 * Where a task's state lives. Each method gets the verified claims of the handle the caller sent and
 * answers `"unknown"` for a task it does not hold (another source may), `"mismatch"` for one it holds for
 * another caller or tool.
 *
 * @since 0.2.0
 */
export interface TaskSource {
  get(claims: TaskClaims, handle: string): Promise<DetailedTask | "unknown" | "mismatch">
  /** Delivers answers to the requests the task waits on (others are ignored). */
  update(
    claims: TaskClaims,
    inputResponses: Readonly<Record<string, unknown>>,
  ): Promise<"ok" | "unknown" | "mismatch">
  /** Asks the task to stop (a terminal task is left as it is). */
  cancel(claims: TaskClaims): Promise<"ok" | "unknown" | "mismatch">
}
