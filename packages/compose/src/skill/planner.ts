/**
 * The planner: validates a skill, applies guards, and produces an immutable plan whose order is
 * deterministic: a step comes after every step it depends on (through references or `dependsOn`), and
 * among the steps ready at the same time the smallest id goes first.
 *
 * @since 0.1.0
 */
import { isJsonObject, isToolId, suggestToolIds, type Tool } from "@toolplane/foundation"
import { SkillPlanError } from "./errors.js"
import type { Guard } from "./guards.js"
import {
  collectReferences,
  MalformedReference,
  type Reference,
  SKILL_INPUT,
  STEP_ID_RE,
} from "./references.js"
import { freezeDeep, type Skill, type SkillStep } from "./skill.js"

/**
 * A step of a plan.
 *
 * @since 0.1.0
 */
export interface PlannedStep {
  readonly id: string
  readonly tool: string
  readonly inputs: Readonly<Record<string, unknown>>
  /** Steps this one waits for, sorted. */
  readonly dependsOn: readonly string[]
  readonly references: readonly Reference[]
}

/**
 * An immutable, validated plan.
 *
 * @since 0.1.0
 */
export interface Plan {
  readonly skill: Skill
  /** Steps in execution order. */
  readonly steps: readonly PlannedStep[]
  /** Step ids in execution order. */
  readonly order: readonly string[]
}

/**
 * Which tools exist: ids or tools, a `Set`, a toolset, or anything with `has(id)`.
 *
 * @since 0.1.0
 */
export type KnownTools = Iterable<string | Tool> | { has(id: string): boolean; ids?(): readonly string[] }

/**
 * Options of {@link makePlanner}.
 *
 * @since 0.1.0
 */
export interface PlannerOptions {
  /** The tools steps may call; without it, unknown tools are not detected at planning time. */
  readonly tools?: KnownTools
  /** Run in order after validation; the first rejection wins. */
  readonly guards?: readonly Guard[]
}

/**
 * A planner. Stateless after construction, safe to share.
 *
 * @since 0.1.0
 */
export interface Planner {
  /** Validates and plans; throws {@link SkillPlanError}. */
  plan(skill: Skill): Plan
}

const known = (
  tools: KnownTools | undefined,
): { has: (id: string) => boolean; ids: () => readonly string[] } | undefined => {
  if (tools === undefined) return undefined
  if (typeof (tools as { has?: unknown }).has === "function" && !(tools instanceof Set)) {
    const t = tools as { has(id: string): boolean; ids?(): readonly string[] }
    return { has: (id) => t.has(id), ids: () => t.ids?.() ?? [] }
  }
  const ids = [...(tools as Iterable<string | Tool>)].map((t) => (typeof t === "string" ? t : t.id))
  const set = new Set(ids)
  return { has: (id) => set.has(id), ids: () => ids }
}

/**
 * Makes a planner.
 *
 * @example
 * ```ts
 * const planner = makePlanner({ tools: await listAllTools(runner), guards: [maxSteps(10)] })
 * const plan = planner.plan(research)
 * plan.order // ["search", "fetch"]
 * ```
 * @since 0.1.0
 */
export const makePlanner = (options: PlannerOptions = {}): Planner => {
  const tools = known(options.tools)
  const guards = Object.freeze([...(options.guards ?? [])])
  return Object.freeze({ plan: (skill: Skill) => planSkill(skill, tools, guards) })
}

const planSkill = (input: Skill, tools: ReturnType<typeof known>, guards: readonly Guard[]): Plan => {
  const skillName = isJsonObject(input) && typeof input.name === "string" ? input.name : "(unnamed)"
  const fail = (
    reason: SkillPlanError["reason"],
    detail: string,
    extra: { stepId?: string; toolId?: string; path?: string } = {},
  ): never => {
    throw new SkillPlanError({ skill: skillName, reason, detail, ...extra })
  }
  if (!isJsonObject(input)) fail("InvalidSkill", "a skill must be an object")
  if (typeof input.name !== "string" || input.name.trim() === "")
    fail("InvalidSkill", "a skill needs a non-empty name", { path: "name" })
  if (!Array.isArray(input.steps)) fail("InvalidSkill", "steps must be an array", { path: "steps" })
  let skill: Skill
  try {
    skill = freezeDeep(structuredClone(input))
  } catch (error) {
    return fail("InvalidSkill", `a skill must be plain data: ${(error as Error).message}`)
  }
  if (skill.steps.length === 0) fail("NoSteps", "a skill needs at least one step", { path: "steps" })

  const index = new Map<string, number>()
  skill.steps.forEach((step: SkillStep, i) => {
    const at = `steps[${i}]`
    if (!isJsonObject(step)) fail("InvalidStep", "a step must be an object", { path: at })
    if (typeof step.id !== "string" || !STEP_ID_RE.test(step.id))
      fail(
        "InvalidStep",
        `step id ${JSON.stringify(step.id)} is invalid (a letter or "_", then letters, digits, "_" or "-")`,
        { path: `${at}.id` },
      )
    const previous = index.get(step.id)
    if (previous !== undefined)
      fail("DuplicateStepId", `step id "${step.id}" is used by steps[${previous}] and ${at}`, {
        stepId: step.id,
        path: `${at}.id`,
      })
    index.set(step.id, i)
    if (!isToolId(step.tool))
      fail(
        "InvalidStep",
        `step "${step.id}" names tool ${JSON.stringify(step.tool)}, not a "namespace/name" id`,
        {
          stepId: step.id,
          path: `${at}.tool`,
        },
      )
    if (step.inputs !== undefined && !isJsonObject(step.inputs))
      fail("InvalidStep", `step "${step.id}" inputs must be an object`, {
        stepId: step.id,
        path: `${at}.inputs`,
      })
    if (
      step.dependsOn !== undefined &&
      !(Array.isArray(step.dependsOn) && step.dependsOn.every((d) => typeof d === "string"))
    )
      fail("InvalidStep", `step "${step.id}" dependsOn must be an array of step ids`, {
        stepId: step.id,
        path: `${at}.dependsOn`,
      })
  })
  if (skill.output !== undefined && !index.has(skill.output))
    fail("DanglingReference", `output names step "${skill.output}", which does not exist`, { path: "output" })

  if (tools)
    skill.steps.forEach((step, i) => {
      if (!tools.has(step.tool)) {
        const suggestions = suggestToolIds(step.tool, tools.ids())
        const hint =
          suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?` : ""
        fail("UnknownTool", `step "${step.id}" calls unknown tool "${step.tool}"${hint}`, {
          stepId: step.id,
          toolId: step.tool,
          path: `steps[${i}].tool`,
        })
      }
    })

  const deps = new Map<string, Set<string>>()
  const refs = new Map<string, Reference[]>()
  skill.steps.forEach((step, i) => {
    const at = `steps[${i}]`
    let found: Reference[]
    try {
      found = collectReferences(step.inputs ?? {}, `${at}.inputs`)
    } catch (error) {
      if (!(error instanceof MalformedReference)) throw error
      fail("InvalidStep", error.detail, { stepId: step.id, path: error.path })
      return
    }
    const mine = new Set<string>()
    for (const r of found) {
      if (r.source === SKILL_INPUT) continue
      if (r.source === step.id)
        fail("Cycle", `step "${step.id}" references its own result`, { stepId: step.id, path: r.path })
      if (!index.has(r.source))
        fail("DanglingReference", `step "${step.id}" references step "${r.source}", which does not exist`, {
          stepId: step.id,
          path: r.path,
        })
      mine.add(r.source)
    }
    ;(step.dependsOn ?? []).forEach((d, j) => {
      if (d === step.id)
        fail("Cycle", `step "${step.id}" depends on itself`, {
          stepId: step.id,
          path: `${at}.dependsOn[${j}]`,
        })
      if (!index.has(d))
        fail("DanglingReference", `step "${step.id}" depends on step "${d}", which does not exist`, {
          stepId: step.id,
          path: `${at}.dependsOn[${j}]`,
        })
      mine.add(d)
    })
    deps.set(step.id, mine)
    refs.set(step.id, found)
  })

  const order = topologicalOrder(deps)
  if (order.length < deps.size) {
    const cycle = findCycle(deps, new Set(order))
    fail("Cycle", `steps form a cycle: ${cycle.join(" → ")}`, { stepId: cycle[0]!, path: "steps" })
  }

  for (const guard of guards) {
    const verdict = guard.check(skill)
    if (verdict === undefined) continue
    if (verdict instanceof SkillPlanError) throw verdict
    throw new SkillPlanError({
      skill: skill.name,
      reason: "GuardRejected",
      detail: String(verdict),
      guard: guard.name,
    })
  }

  const steps = order.map((id): PlannedStep => {
    const step = skill.steps[index.get(id)!]!
    return Object.freeze({
      id,
      tool: step.tool,
      inputs: step.inputs ?? Object.freeze({}),
      dependsOn: Object.freeze([...deps.get(id)!].sort()),
      references: Object.freeze(refs.get(id)!.map((r) => Object.freeze(r))),
    })
  })
  return Object.freeze({ skill, steps: Object.freeze(steps), order: Object.freeze(order) })
}

/** Kahn's algorithm; among ready steps the smallest id first. */
const topologicalOrder = (deps: ReadonlyMap<string, ReadonlySet<string>>): string[] => {
  const remaining = new Map<string, number>()
  const dependents = new Map<string, string[]>()
  for (const [id, ds] of deps) {
    remaining.set(id, ds.size)
    for (const d of ds) dependents.set(d, [...(dependents.get(d) ?? []), id])
  }
  const ready = [...remaining].filter(([, n]) => n === 0).map(([id]) => id)
  const order: string[] = []
  while (ready.length > 0) {
    ready.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    const id = ready.pop()!
    order.push(id)
    for (const dep of dependents.get(id) ?? []) {
      const n = remaining.get(dep)! - 1
      remaining.set(dep, n)
      if (n === 0) ready.push(dep)
    }
  }
  return order
}

/** A cycle among the steps Kahn's algorithm could not order, smallest id first: `a → b → a`. */
const findCycle = (
  deps: ReadonlyMap<string, ReadonlySet<string>>,
  ordered: ReadonlySet<string>,
): string[] => {
  const stuck = [...deps.keys()].filter((id) => !ordered.has(id)).sort()
  const path: string[] = []
  const seenAt = new Map<string, number>()
  let current = stuck[0]!
  while (!seenAt.has(current)) {
    seenAt.set(current, path.length)
    path.push(current)
    current = [...deps.get(current)!].filter((d) => !ordered.has(d)).sort()[0]!
  }
  const cycle = path.slice(seenAt.get(current))
  return [...cycle, cycle[0]!]
}
