/**
 * Planner guards: pure, idempotent checks run on a valid skill before a plan is made. A guard returns
 * `undefined` to accept, or a rejection (a message or a {@link SkillPlanError}).
 *
 * @since 0.1.0
 */
import { compileIdPatterns } from "../internal/glob.js"
import { SkillPlanError } from "./errors.js"
import type { Skill } from "./skill.js"

/**
 * A guard. `check` must be pure (no side effects) and thread-safe: planners are shared.
 *
 * @since 0.1.0
 */
export interface Guard {
  readonly name: string
  check(skill: Skill): SkillPlanError | string | undefined
}

/**
 * Makes a custom guard; a returned string rejects the skill with reason `GuardRejected`.
 *
 * @example
 * ```ts
 * const noDeletes = defineGuard("no-deletes", (skill) =>
 *   skill.steps.some((s) => s.tool.endsWith("/delete")) ? "deleting is not allowed in skills" : undefined,
 * )
 * ```
 * @since 0.1.0
 */
export const defineGuard = (
  name: string,
  check: (skill: Skill) => SkillPlanError | string | undefined,
): Guard => ({ name, check })

/**
 * Rejects skills with more than `max` steps (`MaxStepsExceeded`).
 *
 * @since 0.1.0
 */
export const maxSteps = (max: number): Guard =>
  defineGuard(`maxSteps(${max})`, (skill) =>
    skill.steps.length > max
      ? new SkillPlanError({
          skill: skill.name,
          reason: "MaxStepsExceeded",
          detail: `${skill.steps.length} steps, the limit is ${max}`,
          path: "steps",
          guard: `maxSteps(${max})`,
        })
      : undefined,
  )

/**
 * Rejects skills calling a tool outside `patterns` (exact ids, globs or `re:`; `ToolNotAllowed`, naming
 * the first offending step).
 *
 * @since 0.1.0
 */
export const allowedTools = (...patterns: readonly string[]): Guard => {
  const match = compileIdPatterns(patterns, "allowedTools")
  const name = `allowedTools(${patterns.join(",")})`
  return defineGuard(name, (skill) => {
    const i = skill.steps.findIndex((s) => !match(s.tool))
    if (i < 0) return undefined
    const step = skill.steps[i]!
    return new SkillPlanError({
      skill: skill.name,
      reason: "ToolNotAllowed",
      detail: `step "${step.id}" calls "${step.tool}", which is not in the allowed tools`,
      stepId: step.id,
      toolId: step.tool,
      path: `steps[${i}].tool`,
      guard: name,
    })
  })
}
