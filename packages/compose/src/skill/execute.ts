/**
 * Executing a plan through any tool service (the runner, or a whole gateway stack). Fail-fast: the first
 * failing step stops the run; the run reports the results so far, in plan order, plus a typed error.
 *
 * @since 0.1.0
 */
import {
  Cancelled,
  type ExecutionContext,
  type ExecutionContextInit,
  ExecutionFailed,
  InvalidArguments,
  type ToolError,
  type ToolResult,
  type ToolService,
  toToolError,
} from "@toolplane/foundation"
import { SkillStepFailed } from "./errors.js"
import type { Plan, PlannedStep } from "./planner.js"
import { resolveInputs, resultValue, SKILL_INPUT, UnresolvedReference } from "./references.js"

/**
 * The result of one step.
 *
 * @since 0.1.0
 */
export interface StepResult {
  readonly stepId: string
  readonly toolId: string
  /** The arguments the step was called with, references resolved. */
  readonly arguments: Readonly<Record<string, unknown>>
  readonly result: ToolResult
}

/**
 * The outcome of a run: every finished step's result in plan order, and the error that stopped it.
 *
 * @since 0.1.0
 */
export interface SkillRun {
  readonly ok: boolean
  readonly results: readonly StepResult[]
  readonly error?: SkillStepFailed
}

/**
 * Options of {@link executePlan}.
 *
 * @since 0.1.0
 */
export interface ExecuteOptions {
  /** Passed to every step's call (its signal cancels the run). */
  readonly context?: ExecutionContext | ExecutionContextInit
  /**
   * How many independent steps may run at once. Default 1 (strictly plan order). Results are reported in
   * plan order whatever the completion order. After a failure no new step starts; steps already running
   * finish and their results are kept.
   */
  readonly concurrency?: number
  /** The skill's own arguments, read by `{ $ref: "$input#/..." }`. */
  readonly input?: Readonly<Record<string, unknown>>
}

const toPointer = (path: string): string =>
  path
    .replace(/^inputs/, "")
    .replace(/\["((?:[^"\\]|\\.)*)"\]/g, (_m, k: string) => `/${JSON.parse(`"${k}"`)}`)
    .replace(/\[(\d+)\]/g, "/$1")
    .replace(/\.([^./[]+)/g, "/$1")

const resultText = (result: ToolResult): string =>
  result.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n") || "the tool reported an error"

/**
 * Runs a plan through `service`. Never rejects for a step failure: the returned run says `ok: false`
 * and carries a {@link SkillStepFailed} wrapping the step's typed error.
 *
 * @example
 * ```ts
 * const run = await executePlan(plan, runner, { concurrency: 4 })
 * if (!run.ok) console.error(run.error?.message, "after", run.results.length, "steps")
 * ```
 * @since 0.1.0
 */
export const executePlan = async (
  plan: Plan,
  service: ToolService,
  options: ExecuteOptions = {},
): Promise<SkillRun> => {
  const limit = Math.max(1, Math.floor(options.concurrency ?? 1))
  const input = options.input ?? {}
  const signal = options.context?.signal
  const done = new Map<string, StepResult>()
  const failures = new Map<string, ToolError>()
  const values = new Map<string, unknown>()
  const sourceValue = (source: string): unknown => (source === SKILL_INPUT ? input : values.get(source))

  const runStep = async (step: PlannedStep): Promise<void> => {
    if (signal?.aborted) throw new Cancelled({ toolId: step.tool, reason: "the skill run was cancelled" })
    let args: Record<string, unknown>
    try {
      args = resolveInputs(step.inputs, sourceValue)
    } catch (error) {
      if (!(error instanceof UnresolvedReference)) throw error
      throw new InvalidArguments({
        toolId: step.tool,
        issues: [{ path: toPointer(error.reference.path), rule: "reference", message: error.message }],
      })
    }
    const result = await service.callTool({
      name: step.tool,
      arguments: args,
      ...(options.context ? { context: options.context } : {}),
    })
    if (result.isError === true)
      throw new ExecutionFailed({
        toolId: step.tool,
        cause: { name: "ToolResultError", message: resultText(result) },
      })
    values.set(step.id, resultValue(result))
    done.set(step.id, { stepId: step.id, toolId: step.tool, arguments: args, result })
  }

  const started = new Set<string>()
  await new Promise<void>((resolve) => {
    let running = 0
    const schedule = (): void => {
      if (failures.size === 0) {
        for (const step of plan.steps) {
          if (running >= limit) break
          if (started.has(step.id) || !step.dependsOn.every((d) => done.has(d))) continue
          started.add(step.id)
          running++
          runStep(step)
            .catch((error: unknown) => {
              failures.set(step.id, toToolError(error, step.tool))
            })
            .finally(() => {
              running--
              schedule()
            })
        }
      }
      if (running === 0) resolve()
    }
    schedule()
  })

  const results = plan.steps.flatMap((s) => (done.has(s.id) ? [done.get(s.id)!] : []))
  const failed = plan.steps.find((s) => failures.has(s.id))
  if (!failed) return { ok: true, results }
  return {
    ok: false,
    results,
    error: new SkillStepFailed({
      skill: plan.skill.name,
      stepId: failed.id,
      toolId: failed.tool,
      error: failures.get(failed.id)!,
    }),
  }
}
