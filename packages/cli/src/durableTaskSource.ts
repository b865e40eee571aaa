/**
 * Tasks of durable skills answered from the run store, so that any replica sharing the store (and the
 * server secret) answers `tasks/get`, `tasks/update` and `tasks/cancel` of a skill's task, not only the
 * replica running the call. A durable skill tool binds its run to the task (`bindTaskState`), so the
 * task's signed handle names the run; the replica running the call answers from memory first, every
 * other one from here:
 *
 * - `tasks/get`: the run's state (`running` → `working`; suspended on an approval → `input_required` with
 *   the same elicitation, under the same key, as its caller is asked; `completed` and `failed` → the
 *   skill tool's result; `cancelled`);
 * - `tasks/update`: an answer to that elicitation is recorded in the store (channel `mcp-task`) and
 *   handed to the engine, which continues the run on whichever runner holds it;
 * - `tasks/cancel`: the run is cancelled in the store (a run already final is left as it is).
 *
 * Loaded only with `[[skills]]` (the store needs `node:sqlite` or PostgreSQL).
 */
import type { Skill } from "@toolplane/compose"
import {
  durableSkillResult,
  type RunInfo,
  RunNotCancellable,
  RunNotFound,
  runIdOfTaskReference,
} from "@toolplane/durable"
import type { ToolResult } from "@toolplane/foundation"
import type { McpTask, McpTaskClaims, McpTaskSource } from "@toolplane/plugin-mcp"
import type { DurableSkills } from "./gateway.js"

/** The channel recorded with a decision or cancellation taken through a task. */
export const TASK_CHANNEL = "mcp-task"

/** A tool result as an MCP `CallToolResult`. */
const callToolResult = (result: ToolResult): Record<string, unknown> => ({
  content: result.content,
  ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
  ...(result.isError ? { isError: true } : {}),
  ...(result._meta !== undefined ? { _meta: result._meta } : {}),
})

/** `undefined` for a run this store does not have. */
const known = async <T>(read: Promise<T>): Promise<T | undefined> => {
  try {
    return await read
  } catch (error) {
    if (error instanceof RunNotFound) return undefined
    throw error
  }
}

/**
 * The task source of durable skills' runs, reading the durable skills of the current gateway (after a
 * reload, the new one's).
 */
export const durableTaskSource = (
  current: () => DurableSkills | undefined,
  options: { readonly pollIntervalMs?: number } = {},
): McpTaskSource => {
  const pollIntervalMs = options.pollIntervalMs ?? 500
  /** The run a handle names and the durable skills to answer from; `undefined` when not ours. */
  const resolve = (claims: McpTaskClaims) => {
    const runId = runIdOfTaskReference(claims.s)
    const durable = current()
    return runId === undefined || durable === undefined ? undefined : { runId, durable }
  }
  const resultOf = (durable: DurableSkills, run: RunInfo) => {
    // a skill removed from the configuration since: its last step is its output
    const skill = durable.skills.get(run.skill) ?? ({ name: run.skill, steps: [] } as unknown as Skill)
    return callToolResult(durableSkillResult(skill, run))
  }
  return {
    get: async (claims, handle) => {
      const found = resolve(claims)
      if (found === undefined) return "unknown"
      const { runId, durable } = found
      const run = await known(durable.runner.store.show(runId))
      if (run === undefined) return "unknown"
      const createdAt = Date.parse(run.createdAt)
      const base = {
        taskId: handle,
        createdAt: run.createdAt,
        lastUpdatedAt: run.updatedAt,
        ttlMs: Math.max(1, claims.e - createdAt),
      }
      if (run.status === "completed" || run.status === "failed")
        return { ...base, status: "completed", result: resultOf(durable, run) } satisfies McpTask
      if (run.status === "cancelled") return { ...base, status: "cancelled" } satisfies McpTask
      const asked =
        run.status === "suspended" ? await durable.runner.store.approvalElicitation(runId) : undefined
      return asked === undefined
        ? { ...base, status: "working", pollIntervalMs }
        : {
            ...base,
            status: "input_required",
            pollIntervalMs,
            inputRequests: { [asked.key]: { method: "elicitation/create", params: { ...asked.params } } },
          }
    },
    update: async (claims, inputResponses) => {
      const found = resolve(claims)
      if (found === undefined) return "unknown"
      const { runId, durable } = found
      const answered = await known(
        durable.runner.store.answerApprovalElicitation(runId, inputResponses, { channel: TASK_CHANNEL }),
      )
      if (answered === undefined) return "unknown"
      // hands the decision to the engine (the run goes on wherever it is held); its outcome is polled
      if (answered === "recorded") void durable.runner.resume(runId).catch(() => {})
      return "ok"
    },
    cancel: async (claims) => {
      const found = resolve(claims)
      if (found === undefined) return "unknown"
      try {
        await found.durable.runner.store.cancel(found.runId, {
          reason: "cancelled by its MCP client (tasks/cancel)",
          channel: TASK_CHANNEL,
        })
      } catch (error) {
        if (error instanceof RunNotFound) return "unknown"
        if (!(error instanceof RunNotCancellable)) throw error
      }
      return "ok"
    },
  }
}
