/**
 * The durable runner: executes skills through a tool service, journaling every step in a SQLite file
 * (embedded) or a PostgreSQL database (distributed: several runners share it, any runner resumes any
 * run). A step that needs approval suspends the run in storage until someone approves (possibly with
 * edited arguments), rejects, or the approval expires; when the run was started by a caller that can
 * answer MCP elicitation, the caller is asked first.
 *
 * @since 0.2.0
 */

import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import {
  executePlan,
  makePlanner,
  type Plan,
  type PlannedStep,
  type Planner,
  type Skill,
} from "@toolplane/compose"
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
import { askCaller } from "./internal/elicitation.js"
import {
  type Journal,
  type Lease,
  LeaseLost,
  type StepOutcome,
  type StepPosition,
} from "./internal/journal.js"
import { openJournal } from "./internal/openJournal.js"
import type { RunInfo, RunStatus } from "./run.js"
import { type ApproveOptions, makeRunStore } from "./runStore.js"

/**
 * Options of {@link openDurableRunner}.
 *
 * @since 0.2.0
 */
export interface DurableRunnerOptions {
  /**
   * Where runs are stored: a SQLite file path (embedded; created if missing), or a PostgreSQL URL
   * (`postgres://user:password@host:5432/db`, distributed: every runner given the same URL shares the
   * runs). Tables are created if missing.
   */
  readonly storage: string
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
  /**
   * How long a run stays leased to this runner without a heartbeat, in milliseconds (default 30 000).
   * The runner renews its leases every third of it; when it dies, another runner takes its runs over
   * once the lease expires.
   */
  readonly leaseMs?: number
  /** This runner's identity in leases. Default `<hostname>/<pid>/<random>`. */
  readonly runnerId?: string
  /** How long to wait for a caller's elicitation answer before leaving the run suspended. Default 10 minutes. */
  readonly elicitationTimeoutMs?: number
  /**
   * Group commit of idempotent steps, in milliseconds (default 50). An idempotent step (`readOnlyHint`
   * or `idempotentHint`) is journaled once, after its call, and its outcome is committed with the next
   * journal write (a non-idempotent step's start, an approval, the run's end) or once the oldest
   * uncommitted outcome is this old: fast consecutive idempotent steps share one commit, and a crash
   * before it runs them again (which their annotations allow). `0` commits each one at once.
   */
  readonly groupCommitMs?: number
  /** The clock (milliseconds), for tests of expiry. Default `Date.now`. */
  readonly now?: () => number
}

/**
 * Options of {@link DurableRunner.start} and {@link DurableRunner.resume}.
 *
 * @since 0.2.0
 */
export interface RunOptions {
  /**
   * The context of the call that started the run (e.g. an MCP client calling a skill through the
   * gateway). When its `client.elicitInput` is present and it is not aborted, a step that needs approval
   * is asked through elicitation: accept approves (with the arguments the user edited, re-validated),
   * decline rejects, no answer (cancel, timeout, disconnect) leaves the run suspended in storage. Steps
   * themselves run with the runner's `context`, not the caller's: a caller that goes away does not
   * cancel the run.
   */
  readonly caller?: ExecutionContext
}

/**
 * A durable runner over one store.
 *
 * @since 0.2.0
 */
export interface DurableRunner {
  /** This runner's identity in leases. */
  readonly runnerId: string
  /** Where the runs are (the file, or the database URL without its password). */
  readonly location: string
  /** Journals a new run of `skill` and executes it until it completes, fails or suspends. */
  start(skill: Skill, input?: Readonly<Record<string, unknown>>, options?: RunOptions): Promise<RunInfo>
  /**
   * Continues a run: completed steps are replayed from the journal (never re-executed), a step
   * interrupted by a crash is re-executed only when its tool is idempotent (`idempotentHint` or
   * `readOnlyHint`), a decided approval is applied. A run still waiting for approval stays suspended. A
   * run another live runner holds (its lease has not expired) is left to it: its current state is
   * returned, status `running`.
   */
  resume(runId: string, options?: RunOptions): Promise<RunInfo>
  /**
   * Takes over and resumes every run left `running` by a runner whose lease expired (or that had none)
   * and every `suspended` run; call it once at start-up.
   */
  recover(): Promise<RunInfo[]>
  /**
   * Takes over runs whose runner died (lease expired) and the suspended runs that have a decision to
   * apply (approved, rejected or expired in any process, or an approval now overdue); returns them after
   * resumption. Runners polling at once split the runs between them.
   */
  poll(): Promise<RunInfo[]>
  /**
   * Polls every `intervalMs` (default 1000) until `stop()`: how a long-running process picks up
   * decisions taken elsewhere (`toolplane runs approve`) and the runs of dead runners. The timer does not
   * keep the process alive.
   */
  watch(options?: { readonly intervalMs?: number }): { stop(): void }
  /** Approves a waiting step (see `RunStore.approve`) and resumes the run. */
  approve(runId: string, stepId: string, options?: ApproveOptions): Promise<RunInfo>
  /** Rejects a waiting step and resumes the run, which fails with `ApprovalDenied`. */
  reject(runId: string, stepId: string, options?: { readonly reason?: string }): Promise<RunInfo>
  list(options?: { readonly status?: RunStatus }): Promise<RunInfo[]>
  show(runId: string): Promise<RunInfo>
  /** Stops the heartbeat and closes the store; runs still executing lose their lease when it expires. */
  close(): Promise<void>
}

const DAY_MS = 24 * 60 * 60 * 1000

const isIdempotent = (tool: Tool | undefined): boolean =>
  tool?.annotations?.idempotentHint === true || tool?.annotations?.readOnlyHint === true

/**
 * Opens a durable runner on `options.storage`: a SQLite file (embedded default) or a PostgreSQL URL
 * (distributed). Several runners may share one store: each run is leased to the runner executing it,
 * and every journal write is fenced by that lease.
 *
 * @example
 * ```ts
 * import { defineSkill } from "@toolplane/compose"
 *
 * const deploy = defineSkill({
 *   name: "deploy",
 *   steps: [{ id: "deploy", tool: "ops/deploy", inputs: { version: { $ref: "$input#/version" } } }],
 * })
 * const durable = await openDurableRunner({ storage: "runs.db", service: runner })
 * await durable.recover() // continue what a previous process left
 * const run = await durable.start(deploy, { version: "1.2.3" })
 * if (run.status === "suspended") await durable.approve(run.runId, "deploy")
 * await durable.close()
 * ```
 * @since 0.2.0
 */
export const openDurableRunner = async (options: DurableRunnerOptions): Promise<DurableRunner> => {
  const journal = await openJournal(options.storage)
  return makeDurableRunner(journal, options)
}

const makeDurableRunner = (journal: Journal, options: DurableRunnerOptions): DurableRunner => {
  const now = options.now ?? Date.now
  const store = makeRunStore(journal, now)
  const ttl = options.approvalTtlMs ?? DAY_MS
  const leaseMs = options.leaseMs ?? 30_000
  const groupCommitMs = options.groupCommitMs ?? 50
  const owner = options.runnerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  const lease = (): Lease => ({ owner, until: now() + leaseMs })
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
  let closed = false

  // The heartbeat: while this runner executes runs, it extends their leases.
  const heartbeat = setInterval(
    () => {
      if (inFlight.size > 0 && !closed) journal.renew(lease()).catch(() => {})
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  )
  heartbeat.unref()

  const planner = async (): Promise<Planner> =>
    options.planner ?? makePlanner({ tools: [...(await tools()).keys()] })

  /** A run just created by `start`: nothing to read back. */
  interface Fresh {
    readonly skill: Skill
    readonly input: Readonly<Record<string, unknown>>
    readonly plan: Plan
  }

  const execute = async (
    runId: string,
    claimed: boolean,
    caller?: ExecutionContext,
    fresh?: Fresh,
  ): Promise<RunInfo> => {
    if (!claimed && !(await journal.claim(runId, lease(), now()))) {
      const current = await journal.run(runId)
      if (current === undefined) throw new RunNotFound({ runId, storage: journal.location })
      return current.info
    }
    const stored = fresh === undefined ? (await journal.run(runId))! : undefined
    const skill = (fresh?.skill ?? stored!.skill) as Skill
    const input = fresh?.input ?? stored!.input
    const known = await tools()
    const plan = fresh?.plan ?? (await planner()).plan(skill)
    // The journal as it was when this resumption began: while the lease holds, only this runner writes steps.
    const journaledSteps = fresh === undefined ? await journal.steps(runId) : new Map()
    let index = 0
    let suspended = false
    let lost = false
    /** Outcomes of idempotent steps not yet committed. */
    const pending: StepOutcome[] = []
    /** When the oldest pending outcome's step started (wall clock). */
    let pendingSince = Date.now()
    const flush = async () => {
      if (pending.length > 0) await journal.record(runId, owner, pending.splice(0), now())
    }

    /** The approval gate of a step: resolves with the arguments to run it with, or throws. */
    const gate = async (
      step: PlannedStep,
      position: StepPosition,
      tool: Tool | undefined,
      args: Readonly<Record<string, unknown>>,
    ): Promise<Readonly<Record<string, unknown>>> => {
      await flush()
      let entry = journaledSteps.get(step.id)
      if (entry === undefined) {
        await journal.awaitApproval(
          runId,
          owner,
          position,
          args,
          tool?.inputSchema,
          Number.isFinite(ttl) ? now() + ttl : null,
          now(),
        )
        entry = await journal.step(runId, step.id)
      } else if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now()) {
        const reason = `approval expired at ${entry.expiresAt}`
        await journal.decide(runId, step.id, "expired", { reason }, now())
        throw new ApprovalDenied({ toolId: step.tool, reason })
      }
      if (caller?.client.elicitInput !== undefined && !caller.signal.aborted && entry !== undefined) {
        await askCaller({
          caller,
          store,
          runId,
          skill: skill.name,
          step: entry,
          tool,
          timeoutMs: options.elicitationTimeoutMs ?? 10 * 60_000,
        })
        const decided = await journal.step(runId, step.id)
        if (decided?.status === "approved") return decided.approvedArguments ?? args
        if (decided?.status === "rejected" || decided?.status === "expired")
          throw new ApprovalDenied({ toolId: step.tool, reason: decided.reason })
      }
      suspended = true
      throw new ApprovalRequired({ toolId: step.tool })
    }

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
        try {
          if ((entry === undefined || entry.status === "awaiting_approval") && needsApproval(step, tool))
            args = await gate(step, position, tool, args)
          else if (entry?.status === "rejected" || entry?.status === "expired")
            throw new ApprovalDenied({ toolId: step.tool, reason: entry.reason })
          else if (entry?.approvedArguments !== undefined) args = entry.approvedArguments
          if (entry?.status === "started" && !isIdempotent(tool))
            throw new ExecutionFailed({
              toolId: step.tool,
              cause: {
                name: "Interrupted",
                message: `step "${step.id}" was interrupted by a crash and its tool is not idempotent, so it is not re-executed`,
              },
              retryable: false,
            })
          // A non-idempotent step is marked started before its call, so a crash during it is detected.
          // An idempotent one is not: its outcome is kept in memory and committed with the next write
          // (the next non-idempotent step's start, an approval, the run's end) or once the oldest
          // uncommitted outcome is `groupCommitMs` old, so consecutive fast idempotent steps share one
          // commit; a crash before it lets them run again, which their annotation allows.
          const idempotent = isIdempotent(tool)
          if (!idempotent) {
            await flush()
            await journal.start(runId, owner, position, args, now())
          }
          if (pending.length === 0) pendingSince = Date.now()
          let result: ToolResult
          try {
            result = await service.callTool({ ...request, arguments: args })
          } catch (error) {
            const failure = toolErrorToJson(toToolError(error, step.tool))
            if (idempotent) pending.push({ step: position, args, status: "failed", result: failure })
            else await journal.finish(runId, owner, step.id, "failed", failure, now())
            throw error
          }
          const status = result.isError === true ? "failed" : "completed"
          if (idempotent) {
            pending.push({ step: position, args, status, result })
            if (Date.now() - pendingSince >= groupCommitMs) await flush()
          } else await journal.finish(runId, owner, step.id, status, result, now())
          return result
        } catch (error) {
          if (error instanceof LeaseLost) lost = true
          throw error
        }
      },
    }
    const outcome = await executePlan(plan, journaled, {
      input,
      ...(options.context ? { context: options.context } : {}),
    })
    try {
      if (lost) throw new LeaseLost(runId)
      await flush()
      if (suspended) await journal.release(runId, owner, "suspended", undefined, now())
      else if (outcome.ok) await journal.release(runId, owner, "completed", undefined, now())
      else {
        const failure = outcome.error!
        await journal.release(
          runId,
          owner,
          "failed",
          {
            message: failure.message,
            stepId: failure.stepId,
            error: isToolError(failure.error) ? toolErrorToJson(failure.error) : String(failure.error),
          },
          now(),
        )
      }
    } catch (error) {
      // Another runner took the run over while this one stalled: it owns the outcome now.
      if (!(error instanceof LeaseLost)) throw error
    }
    return store.show(runId)
  }

  const resumeWith = (
    runId: string,
    claimed: boolean,
    caller?: ExecutionContext,
    fresh?: Fresh,
  ): Promise<RunInfo> => {
    const running = inFlight.get(runId)
    if (running) return running
    const promise = execute(runId, claimed, caller, fresh).finally(() => inFlight.delete(runId))
    inFlight.set(runId, promise)
    return promise
  }

  const resumeClaimed = async (runIds: readonly string[]): Promise<RunInfo[]> => {
    const out: RunInfo[] = []
    for (const runId of runIds) out.push(await resumeWith(runId, true))
    return out
  }
  const poll = async () =>
    resumeClaimed(
      await journal.claimMany({ orphaned: true, suspended: "decided", limit: 100 }, lease(), now()),
    )

  return {
    runnerId: owner,
    location: journal.location,
    start: async (skill, input = {}, runOptions = {}) => {
      const plan = (await planner()).plan(skill)
      const runId = randomUUID()
      await journal.createRun(runId, skill, input, lease(), now())
      return resumeWith(runId, true, runOptions.caller, { skill, input, plan })
    },
    resume: (runId, runOptions = {}) => resumeWith(runId, false, runOptions.caller),
    recover: async () =>
      resumeClaimed(
        await journal.claimMany({ orphaned: true, suspended: "all", limit: 1000 }, lease(), now()),
      ),
    poll,
    watch: (watchOptions = {}) => {
      let busy = false
      const timer = setInterval(() => {
        if (busy || closed) return
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
      return resumeWith(runId, false)
    },
    reject: async (runId, stepId, rejectOptions) => {
      await store.reject(runId, stepId, rejectOptions)
      return resumeWith(runId, false)
    },
    list: (listOptions) => store.list(listOptions),
    show: (runId) => store.show(runId),
    close: async () => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      await journal.close()
    },
  }
}
