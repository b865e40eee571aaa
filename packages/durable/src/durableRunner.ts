/**
 * The durable runner: executes skills through a tool service, journaling every step in a SQLite file so
 * a run survives the process. A step that needs approval suspends the run in the file until someone
 * approves (possibly with edited arguments), rejects, or the approval expires.
 *
 * @since 0.2.0
 */

import { randomUUID } from "node:crypto"
import { executePlan, makePlanner, type PlannedStep, type Planner, type Skill } from "@toolplane/compose"
import {
  ApprovalDenied,
  ApprovalRequired,
  type ExecutionContext,
  type ExecutionContextInit,
  ExecutionFailed,
  isToolError,
  listAllTools,
  type Tool,
  type ToolResult,
  type ToolService,
  toolErrorToJson,
  toToolError,
} from "@toolplane/foundation"
import { RunNotFound } from "./errors.js"
import { Journal } from "./internal/journal.js"
import type { RunInfo, RunStatus } from "./run.js"
import { type ApproveOptions, makeRunStore } from "./runStore.js"

/**
 * Options of {@link openDurableRunner}.
 *
 * @since 0.2.0
 */
export interface DurableRunnerOptions {
  /** The SQLite file holding the runs (created if missing). */
  readonly file: string
  /** Executes every step: a runner or a whole gateway stack (validation, approval, limits all apply). */
  readonly service: ToolService
  /**
   * Which steps suspend for approval. Default: every step whose tool is not annotated `readOnlyHint`
   * (or is unknown to the service).
   */
  readonly approval?: (step: PlannedStep, tool: Tool | undefined) => boolean
  /** How long an approval may wait, in milliseconds. Default 24 hours; `Infinity` never expires. */
  readonly approvalTtlMs?: number
  /** Plans the stored skills. Default: `makePlanner({ tools })` over the service's tools. */
  readonly planner?: Planner
  /** Passed to every step's call. */
  readonly context?: ExecutionContext | ExecutionContextInit
  /** The clock (milliseconds), for tests of expiry. Default `Date.now`. */
  readonly now?: () => number
}

/**
 * A durable runner over one run file.
 *
 * @since 0.2.0
 */
export interface DurableRunner {
  /** Journals a new run of `skill` and executes it until it completes, fails or suspends. */
  start(skill: Skill, input?: Readonly<Record<string, unknown>>): Promise<RunInfo>
  /**
   * Continues a run: completed steps are replayed from the journal (never re-executed), a step
   * interrupted by a crash is re-executed only when its tool is idempotent (`idempotentHint` or
   * `readOnlyHint`), a decided approval is applied. A run still waiting for approval stays suspended.
   */
  resume(runId: string): Promise<RunInfo>
  /** Resumes every run left `running` (by a crash) or `suspended`; call it once at start-up. */
  recover(): Promise<RunInfo[]>
  /**
   * Resumes the suspended runs that have a decision to apply (approved, rejected or expired in any
   * process, or an approval now overdue); returns them after resumption.
   */
  poll(): Promise<RunInfo[]>
  /**
   * Polls every `intervalMs` (default 1000) until `stop()`: how a long-running process picks up
   * decisions taken elsewhere (`toolplane runs approve`). The timer does not keep the process alive.
   */
  watch(options?: { readonly intervalMs?: number }): { stop(): void }
  /** Approves a waiting step (see `RunStore.approve`) and resumes the run. */
  approve(runId: string, stepId: string, options?: ApproveOptions): Promise<RunInfo>
  /** Rejects a waiting step and resumes the run, which fails with `ApprovalDenied`. */
  reject(runId: string, stepId: string, options?: { readonly reason?: string }): Promise<RunInfo>
  list(options?: { readonly status?: RunStatus }): RunInfo[]
  show(runId: string): RunInfo
  close(): void
}

const DAY_MS = 24 * 60 * 60 * 1000

const isIdempotent = (tool: Tool | undefined): boolean =>
  tool?.annotations?.idempotentHint === true || tool?.annotations?.readOnlyHint === true

/**
 * Opens a durable runner on `options.file`: a single runner with embedded SQLite storage (Node's
 * `node:sqlite`; one runner process per file).
 *
 * @example
 * ```ts
 * import { defineSkill } from "@toolplane/compose"
 *
 * const deploy = defineSkill({
 *   name: "deploy",
 *   steps: [{ id: "deploy", tool: "ops/deploy", inputs: { version: { $ref: "$input#/version" } } }],
 * })
 * const durable = openDurableRunner({ file: "runs.db", service: runner })
 * await durable.recover() // continue what a previous process left
 * const run = await durable.start(deploy, { version: "1.2.3" })
 * if (run.status === "suspended") await durable.approve(run.runId, "deploy")
 * ```
 * @since 0.2.0
 */
export const openDurableRunner = (options: DurableRunnerOptions): DurableRunner => {
  const now = options.now ?? Date.now
  const journal = new Journal(options.file)
  const store = makeRunStore(journal, now)
  const ttl = options.approvalTtlMs ?? DAY_MS
  const service = options.service
  let toolsPromise: Promise<Map<string, Tool>> | undefined
  const tools = (): Promise<Map<string, Tool>> => {
    toolsPromise ??= listAllTools(service).then((list) => new Map(list.map((t) => [t.id, t])))
    return toolsPromise
  }
  const needsApproval =
    options.approval ??
    ((_step: PlannedStep, tool: Tool | undefined) => tool?.annotations?.readOnlyHint !== true)
  const inFlight = new Map<string, Promise<RunInfo>>()

  const planner = async (): Promise<Planner> =>
    options.planner ?? makePlanner({ tools: [...(await tools()).keys()] })

  const execute = async (runId: string): Promise<RunInfo> => {
    const run = journal.runRow(runId)
    if (run === undefined) throw new RunNotFound({ runId, file: journal.file })
    if (run.info.status === "completed" || run.info.status === "failed") return run.info
    const known = await tools()
    const plan = (await planner()).plan(run.skill as Skill)
    // The journal as it was when this resumption began: steps are only ever written by this execution.
    const journaledSteps = journal.steps(runId)
    let index = 0
    let suspended = false
    const journaled: ToolService = {
      listTools: (request) => service.listTools(request),
      callTool: async (request): Promise<ToolResult> => {
        const step = plan.steps[index++]
        if (step === undefined || step.tool !== request.name)
          throw new ExecutionFailed({
            toolId: request.name,
            cause: {
              name: "JournalMismatch",
              message: `the plan of run ${runId} does not call "${request.name}" here`,
            },
            retryable: false,
          })
        const position = { id: step.id, index: index - 1, tool: step.tool }
        const tool = known.get(step.tool)
        const entry = journaledSteps.get(step.id)
        if (entry?.status === "completed") return entry.result!
        let args: Readonly<Record<string, unknown>> = request.arguments ?? {}
        if ((entry === undefined || entry.status === "awaiting_approval") && needsApproval(step, tool)) {
          if (entry === undefined)
            journal.awaitApproval(
              runId,
              position,
              args,
              tool?.inputSchema,
              Number.isFinite(ttl) ? now() + ttl : null,
              now(),
            )
          else if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now()) {
            const reason = `approval expired at ${entry.expiresAt}`
            journal.decide(runId, step.id, "expired", { reason }, now())
            throw new ApprovalDenied({ toolId: step.tool, reason })
          }
          suspended = true
          throw new ApprovalRequired({ toolId: step.tool })
        }
        if (entry?.status === "rejected" || entry?.status === "expired")
          throw new ApprovalDenied({ toolId: step.tool, reason: entry.reason })
        if (entry?.approvedArguments !== undefined) args = entry.approvedArguments
        if (entry?.status === "started" && !isIdempotent(tool))
          throw new ExecutionFailed({
            toolId: step.tool,
            cause: {
              name: "Interrupted",
              message: `step "${step.id}" was interrupted by a crash and its tool is not idempotent, so it is not re-executed`,
            },
            retryable: false,
          })
        journal.start(runId, position, args, now())
        let result: ToolResult
        try {
          result = await service.callTool({ ...request, arguments: args })
        } catch (error) {
          journal.finish(runId, step.id, "failed", toolErrorToJson(toToolError(error, step.tool)), now())
          throw error
        }
        journal.finish(runId, step.id, result.isError === true ? "failed" : "completed", result, now())
        return result
      },
    }
    journal.setRunStatus(runId, "running", undefined, now())
    const outcome = await executePlan(plan, journaled, {
      input: run.input,
      ...(options.context ? { context: options.context } : {}),
    })
    if (suspended) journal.setRunStatus(runId, "suspended", undefined, now())
    else if (outcome.ok) journal.setRunStatus(runId, "completed", undefined, now())
    else {
      const failure = outcome.error!
      journal.setRunStatus(
        runId,
        "failed",
        {
          message: failure.message,
          stepId: failure.stepId,
          error: isToolError(failure.error) ? toolErrorToJson(failure.error) : String(failure.error),
        },
        now(),
      )
    }
    return store.show(runId)
  }

  const resume = (runId: string): Promise<RunInfo> => {
    const running = inFlight.get(runId)
    if (running) return running
    const promise = execute(runId).finally(() => inFlight.delete(runId))
    inFlight.set(runId, promise)
    return promise
  }

  const resumeAll = async (runIds: readonly string[]): Promise<RunInfo[]> => {
    const out: RunInfo[] = []
    for (const runId of runIds) out.push(await resume(runId))
    return out
  }
  const poll = () => resumeAll(journal.decidedRuns(now()))

  return {
    start: async (skill, input = {}) => {
      ;(await planner()).plan(skill)
      const runId = randomUUID()
      journal.createRun(runId, skill, input, now())
      return resume(runId)
    },
    resume,
    recover: () => resumeAll([...journal.list("running"), ...journal.list("suspended")].map((r) => r.runId)),
    poll,
    watch: (watchOptions = {}) => {
      let busy = false
      const timer = setInterval(() => {
        if (busy || !journal.db.isOpen) return
        busy = true
        poll()
          .catch(() => {})
          .finally(() => {
            busy = false
          })
      }, watchOptions.intervalMs ?? 1000)
      timer.unref()
      return { stop: () => clearInterval(timer) }
    },
    approve: async (runId, stepId, approveOptions) => {
      await store.approve(runId, stepId, approveOptions)
      return resume(runId)
    },
    reject: async (runId, stepId, rejectOptions) => {
      store.reject(runId, stepId, rejectOptions)
      return resume(runId)
    },
    list: (listOptions) => store.list(listOptions),
    show: (runId) => store.show(runId),
    close: () => journal.close(),
  }
}
