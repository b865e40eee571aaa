/**
 * Skill errors. Planning failures have no foundation counterpart, so they get their own tagged class
 * with a `reason` code; a failed step wraps the step's own foundation error. Both are members of
 * foundation's `ToolError` family (`isToolError` recognises them, `Effect.catchTag` discriminates them).
 *
 * @since 0.1.0
 */
import { TaggedToolError, type ToolError } from "@toolplane/foundation"

declare module "@toolplane/foundation" {
  interface ToolErrorExtensions {
    readonly SkillPlanError: SkillPlanError
    readonly SkillStepFailed: SkillStepFailed
  }
}

/**
 * Why a skill could not be planned.
 *
 * @since 0.1.0
 */
export type SkillPlanErrorReason =
  | "InvalidSkill"
  | "NoSteps"
  | "InvalidStep"
  | "DuplicateStepId"
  | "UnknownTool"
  | "DanglingReference"
  | "Cycle"
  | "MaxStepsExceeded"
  | "ToolNotAllowed"
  | "GuardRejected"

/**
 * A skill failed validation or a guard. `stepId` / `toolId` name the culprit when there is one; `path`
 * points into the skill definition (e.g. `steps[2].inputs.url`).
 *
 * @since 0.1.0
 */
export class SkillPlanError extends TaggedToolError("SkillPlanError")<{
  readonly skill: string
  readonly reason: SkillPlanErrorReason
  readonly detail: string
  readonly stepId?: string | undefined
  readonly toolId?: string | undefined
  readonly path?: string | undefined
  readonly guard?: string | undefined
}> {
  readonly code = "SKILL_PLAN_ERROR"
  override get message(): string {
    const where = this.path ? ` at ${this.path}` : ""
    return `Skill "${this.skill}" cannot be planned (${this.reason})${where}: ${this.detail}`
  }
}

/**
 * A step of a running skill failed. `error` is the step's typed error (`ToolNotFound`,
 * `InvalidArguments`, `ExecutionFailed`, `Timeout`, ...); a result with `isError: true` is reported as
 * `ExecutionFailed` carrying the result's text.
 *
 * @since 0.1.0
 */
export class SkillStepFailed extends TaggedToolError("SkillStepFailed")<{
  readonly skill: string
  readonly stepId: string
  readonly toolId: string
  readonly error: ToolError
}> {
  readonly code = "SKILL_STEP_FAILED"
  override get message(): string {
    return `Skill "${this.skill}" failed at step "${this.stepId}" (${this.toolId}): ${this.error.message}`
  }
}
