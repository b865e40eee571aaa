/**
 * A skill served as a durable tool: calling the tool starts a durable run. Served by a gateway, an MCP
 * client that calls it and supports elicitation is asked to approve the steps that need approval while
 * it is connected; otherwise (or without an answer) the run stays suspended in storage.
 *
 * @since 0.1.0
 */
import type { Skill } from "@toolplane/compose"
import {
  bindTaskState,
  defineTool,
  EMPTY_INPUT_SCHEMA,
  errorResult,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolResult,
} from "@toolplane/foundation"
import type { DurableRunner } from "./durableRunner.js"
import type { RunInfo } from "./run.js"

/**
 * Options of {@link durableSkillTool}.
 *
 * @since 0.1.0
 */
export interface DurableSkillToolOptions {
  /** The tool id. Default `skill/<skill name>`. */
  readonly id?: string
  readonly description?: string
  readonly annotations?: ToolAnnotations
  readonly tags?: readonly string[]
}

/** The `_meta` key of a durable skill tool's result: `{ runId, status }`. @since 0.1.0 */
export const RUN_META_KEY = "toolplane.dev/run"

const TASK_REFERENCE_PREFIX = "run1."
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The task-state reference of a run (see foundation's `bindTaskState`): a durable skill tool binds its
 * run under it, so a server's task of the call can be answered from the run store by any replica.
 *
 * @since 0.2.0
 */
export const runTaskReference = (runId: string): string => `${TASK_REFERENCE_PREFIX}${runId}`

/**
 * The run id a task-state reference names, or `undefined` when it is not a run's.
 *
 * @since 0.2.0
 */
export const runIdOfTaskReference = (reference: string | undefined): string | undefined => {
  if (reference === undefined || !reference.startsWith(TASK_REFERENCE_PREFIX)) return undefined
  const runId = reference.slice(TASK_REFERENCE_PREFIX.length)
  return RUN_ID.test(runId) ? runId : undefined
}

/**
 * The result a durable skill tool answers for `run` of `skill` (see {@link durableSkillTool}): the output
 * step's result once completed, an `isError` result once failed, otherwise the run's status and the step
 * waiting for approval. Every result carries `_meta["toolplane.dev/run"]`.
 *
 * @since 0.2.0
 */
export const durableSkillResult = (skill: Skill, run: RunInfo): ToolResult => {
  const meta = { [RUN_META_KEY]: { runId: run.runId, status: run.status } }
  if (run.status === "completed") {
    const output = skill.output ?? run.steps.at(-1)?.stepId
    const result = run.steps.find((s) => s.stepId === output)?.result ?? { content: [] }
    return { ...result, _meta: { ...result._meta, ...meta } }
  }
  if (run.status === "failed") {
    const error = run.error as { message?: string; stepId?: string; error?: unknown } | undefined
    return {
      ...errorResult(error?.message ?? `run ${run.runId} failed`, {
        runId: run.runId,
        status: run.status,
        ...(error?.stepId !== undefined ? { failedStep: error.stepId } : {}),
        ...(error?.error !== undefined ? { error: error.error } : {}),
      }),
      _meta: meta,
    }
  }
  const waiting = run.steps.find((s) => s.status === "awaiting_approval")
  const text = waiting
    ? `Run ${run.runId} is waiting for approval of step "${waiting.stepId}" (${waiting.tool}). ` +
      `Approve it with \`toolplane runs approve ${run.runId} ${waiting.stepId}\` (or reject it); ` +
      "a runner continues the run once decided."
    : `Run ${run.runId} is ${run.status}.`
  return {
    content: [{ type: "text", text }],
    structuredContent: {
      runId: run.runId,
      status: run.status,
      ...(waiting
        ? {
            waiting: {
              stepId: waiting.stepId,
              tool: waiting.tool,
              arguments: waiting.arguments,
              ...(waiting.expiresAt !== undefined ? { expiresAt: waiting.expiresAt } : {}),
            },
          }
        : {}),
    },
    _meta: meta,
  }
}

/**
 * Makes a tool that runs `skill` durably on `runner`. The caller's context is the run's `caller`: a
 * step that needs approval is asked through the caller's elicitation when it has one. The result is the
 * output step's result (the skill's `output`, or its last step) when the run completes; an `isError`
 * result with `runId`, `failedStep` and `error` when it fails; and, when it waits for approval, a
 * result whose `structuredContent` is `{ runId, status: "suspended", waiting }` and whose text says how to
 * approve. Every result carries `_meta["toolplane.dev/run"] = { runId, status }`.
 *
 * @example
 * ```ts
 * import { defineSkill, gatewayStack } from "@toolplane/compose"
 *
 * const release = defineSkill({
 *   name: "release",
 *   steps: [{ id: "deploy", tool: "ops/deploy", inputs: { version: { $ref: "$input#/version" } } }],
 * })
 * const durable = await openDurableRunner({ storage: "runs.db", service: runner })
 * const gateway = await gatewayStack(runner, { tools: [durableSkillTool(release, durable)] })
 * ```
 * @since 0.1.0
 */
export const durableSkillTool = (
  skill: Skill,
  runner: DurableRunner,
  options: DurableSkillToolOptions = {},
): ToolDefinition =>
  defineTool({
    id: options.id ?? `skill/${skill.name}`,
    description:
      options.description ??
      skill.description ??
      `Runs the "${skill.name}" skill durably (steps that need approval wait for it)`,
    input: skill.inputSchema ?? EMPTY_INPUT_SCHEMA,
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
    // a run may wait for approvals: served as a task (MCP tasks extension) to a client that takes one
    metadata: { skill: skill.name, durable: true, mcp: { execution: { taskSupport: "optional" } } },
    handler: async (args, ctx): Promise<ToolResult> => {
      // Promised before anything is awaited, so the call does not become a task before its run is
      // stored (a slow store or tool listing): the task then names the run.
      let stored!: (reference: string) => void
      let unbound!: () => void
      const reference = new Promise<string>((resolve, reject) => {
        stored = resolve
        unbound = reject
      })
      reference.catch(() => {}) // when no server takes the binding, its rejection is nobody's error
      bindTaskState(ctx, reference)
      try {
        const run = await runner.start(skill, args as Record<string, unknown>, {
          caller: ctx,
          onStarted: (runId) => stored(runTaskReference(runId)),
        })
        return durableSkillResult(skill, run)
      } finally {
        unbound() // no run was stored (planning failed): nothing to bind
      }
    },
  })
