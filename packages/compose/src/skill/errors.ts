/**
 * Skill errors. Planning failures have no foundation counterpart, so they get their own tagged class
 * with a `reason` code; a failed step wraps the step's own foundation error. Both are members of
 * foundation's `ToolError` family (`isToolError` recognises them, `Effect.catchTag` discriminates them).
 *
 * @since 0.1.0
 */
import {
  isToolError,
  registerToolErrorDecoder,
  TaggedToolError,
  type ToolError,
  toolErrorFromJson,
} from "@toolplane/foundation"

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

const PLAN_REASONS: ReadonlySet<unknown> = new Set<SkillPlanErrorReason>([
  "InvalidSkill",
  "NoSteps",
  "InvalidStep",
  "DuplicateStepId",
  "UnknownTool",
  "DanglingReference",
  "Cycle",
  "MaxStepsExceeded",
  "ToolNotAllowed",
  "GuardRejected",
])

/** An optional string field from the wire: absent, or a string (anything else rejects the error). */
const optionalString = (value: unknown): value is string | undefined =>
  value === undefined || typeof value === "string"

// `toolErrorFromJson` rebuilds skill errors that crossed a process or protocol boundary.
registerToolErrorDecoder("SkillPlanError", ({ skill, reason, detail, stepId, toolId, path, guard }) => {
  if (typeof skill !== "string" || !PLAN_REASONS.has(reason) || typeof detail !== "string") return undefined
  if (![stepId, toolId, path, guard].every(optionalString)) return undefined
  return new SkillPlanError({
    skill,
    reason: reason as SkillPlanErrorReason,
    detail,
    ...(stepId !== undefined ? { stepId: stepId as string } : {}),
    ...(toolId !== undefined ? { toolId: toolId as string } : {}),
    ...(path !== undefined ? { path: path as string } : {}),
    ...(guard !== undefined ? { guard: guard as string } : {}),
  })
})
// The step's own error is rebuilt too (any member toolErrorFromJson knows); an unknown one rejects it.
registerToolErrorDecoder("SkillStepFailed", ({ skill, stepId, toolId, error }) => {
  if (typeof skill !== "string" || typeof stepId !== "string" || typeof toolId !== "string") return undefined
  const inner = isToolError(error) ? error : toolErrorFromJson(error)
  return inner === undefined ? undefined : new SkillStepFailed({ skill, stepId, toolId, error: inner })
})
