/**
 * Skills: declarative multi-step tool workflows. A skill is plain data (name, steps, each with a tool id
 * and inputs that may reference earlier results); the planner validates it and fixes the order, and
 * `executePlan` runs it through any tool service.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "@toolplane/foundation"

/**
 * One step: call `tool` with `inputs` (which may hold references, see `references.ts`).
 *
 * @since 0.1.0
 */
export interface SkillStep {
  /** Unique within the skill: a letter or `_`, then letters, digits, `_` or `-`. */
  readonly id: string
  /** The tool id, `namespace/name`. */
  readonly tool: string
  readonly inputs?: Readonly<Record<string, unknown>>
  /** Steps that must finish first although no input references them. */
  readonly dependsOn?: readonly string[]
}

/**
 * A skill.
 *
 * @since 0.1.0
 */
export interface Skill {
  readonly name: string
  readonly description?: string
  /** Schema of the skill's own arguments (read with `{ $ref: "$input#/..." }`) when run as a tool. */
  readonly inputSchema?: JsonSchema
  readonly steps: readonly SkillStep[]
  /** The step whose result is the skill's result when it runs as a tool. Default: the last step of the plan. */
  readonly output?: string
}

const deepFreeze = <T>(value: T): T => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/**
 * Defines a skill: returns a deep-frozen copy (validation happens in the planner).
 *
 * @example
 * ```ts
 * const research = defineSkill({
 *   name: "research",
 *   steps: [
 *     { id: "search", tool: "web/search", inputs: { q: { $ref: "$input#/topic" } } },
 *     { id: "fetch", tool: "web/fetch", inputs: { url: { $ref: "search#/results/0/url" } } },
 *   ],
 * })
 * ```
 * @since 0.1.0
 */
export const defineSkill = (skill: Skill): Skill => deepFreeze(structuredClone(skill))

/** @internal */
export const freezeDeep = deepFreeze
