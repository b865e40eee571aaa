/**
 * How a tool tells the server serving it where the state of its call lives, so that a task made of the
 * call (the MCP tasks extension) can be answered by any replica that reads that state, not only by the
 * process running the call. A durable skill binds its run this way: `tasks/get`, `tasks/update` and
 * `tasks/cancel` are then answered from the run store shared by the replicas.
 *
 * @since 0.2.0
 */
import type { ExecutionContext } from "./executionContext.js"

/**
 * The context metadata key under which a server that may turn a call into a task offers a
 * {@link TaskStateBinding}.
 *
 * @since 0.2.0
 */
export const TASK_STATE_KEY = "toolplane.dev/taskState"

/**
 * The `_meta` key of an elicitation or sampling request's params with which a tool (or an approver) names
 * its input: for a 2026-07-28 client the request becomes the input request (of an `InputRequiredResult`
 * or of a task) under this key (default `elicitation-1`, `sampling-1`, … in the order asked). Removed
 * before the request reaches the client; a 2025 client receives it unchanged in `elicitation/create`.
 *
 * @since 0.2.0
 */
export const INPUT_KEY_META_KEY = "toolplane.dev/inputKey"

/**
 * Offered by a server in a call's `ctx.metadata[TASK_STATE_KEY]`.
 *
 * @since 0.2.0
 */
export interface TaskStateBinding {
  /**
   * Names where the call's state lives (a reference a task source of the server understands, at most
   * 512 characters). It takes effect when the call becomes a task afterwards; a call already made a task
   * keeps being answered by the process running it. A promise of the reference is for state that does
   * not exist yet (a run being created): until it settles the call does not become a task on its own
   * (it may still finish first and be answered directly); a rejected promise binds nothing.
   */
  bind(reference: string | PromiseLike<string>): void
}

/**
 * Binds the state of the call of `ctx` to `reference` when its server offers it (see
 * {@link TaskStateBinding}); `false` when the call is not served that way.
 *
 * @example
 * ```ts
 * import { bindTaskState, defineTool } from "@toolplane/foundation"
 *
 * const job = defineTool({
 *   id: "jobs/start",
 *   handler: async (_args, ctx) => {
 *     const jobId = crypto.randomUUID()
 *     bindTaskState(ctx, `job1.${jobId}`) // a task source of the server answers for `job1.` references
 *     return { jobId }
 *   },
 * })
 * ```
 * @since 0.2.0
 */
export const bindTaskState = (ctx: ExecutionContext, reference: string | PromiseLike<string>): boolean => {
  const offered = ctx.metadata[TASK_STATE_KEY] as Partial<TaskStateBinding> | undefined
  if (typeof offered?.bind !== "function") return false
  offered.bind(reference)
  return true
}
