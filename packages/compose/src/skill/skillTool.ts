/**
 * A skill exposed as a tool: calling it runs the plan through a tool service and returns the output
 * step's result.
 *
 * @since 0.1.0
 */
import {
  defineTool,
  EMPTY_INPUT_SCHEMA,
  errorResult,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolResult,
  type ToolService,
  toolErrorToJson,
} from "@toolplane/foundation"
import { executePlan } from "./execute.js"
import type { Plan } from "./planner.js"

/**
 * Options of {@link skillTool}.
 *
 * @since 0.1.0
 */
export interface SkillToolOptions {
  /** The tool id. Default `skill/<skill name>`. */
  readonly id?: string
  readonly description?: string
  readonly annotations?: ToolAnnotations
  readonly tags?: readonly string[]
  /** Passed to {@link executePlan}. */
  readonly concurrency?: number
}

/**
 * Makes a tool that runs `plan` through `service` (or a function returning it, for a skill served by the
 * same stack it calls). Arguments are validated against the skill's `inputSchema` and read by
 * `$input` references. On success the result is the output step's result (the skill's `output`, or the
 * last step of the plan) with `_meta["toolplane/skill"] = { name, steps }`; on failure it is an
 * `isError` result whose `structuredContent` holds `failedStep`, `error` (JSON form) and `completed`.
 *
 * @example
 * ```ts
 * const research = skillTool(plan, () => gateway, { id: "skills/research" })
 * const gateway = await gatewayStack(runner, { tools: [research] })
 * ```
 * @since 0.1.0
 */
export const skillTool = (
  plan: Plan,
  service: ToolService | (() => ToolService),
  options: SkillToolOptions = {},
): ToolDefinition => {
  const skill = plan.skill
  const output = skill.output ?? plan.order[plan.order.length - 1]!
  const resolve = typeof service === "function" ? service : () => service
  return defineTool({
    id: options.id ?? `skill/${skill.name}`,
    description:
      options.description ??
      skill.description ??
      `Runs the "${skill.name}" skill (${plan.order.join(" → ")})`,
    input: skill.inputSchema ?? EMPTY_INPUT_SCHEMA,
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
    metadata: { skill: skill.name, steps: [...plan.order] },
    handler: async (args, ctx): Promise<ToolResult> => {
      const run = await executePlan(plan, resolve(), {
        input: args,
        context: ctx,
        ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      })
      const completed = run.results.map((r) => r.stepId)
      if (!run.ok) {
        const failure = run.error!
        return errorResult(failure.message, {
          failedStep: failure.stepId,
          error: toolErrorToJson(failure.error),
          completed,
        })
      }
      const result = run.results.find((r) => r.stepId === output)!.result
      return {
        ...result,
        _meta: { ...result._meta, "toolplane/skill": { name: skill.name, steps: completed } },
      }
    },
  })
}
