/**
 * The durable runner: executes skills through a tool service on Effect's workflow engine
 * (`effect/workflow` on `effect/cluster`'s `ClusterWorkflowEngine`, SQL storage): a SQLite file
 * (embedded) or a PostgreSQL database (distributed: several runners share it, any runner resumes any
 * run). Every skill run is a workflow execution; every step an activity executed through the service; a
 * step that needs approval waits on a durable deferred until someone approves (possibly with edited
 * arguments), rejects, or the approval expires; when the run was started by a caller that can answer MCP
 * elicitation, the caller is asked first.
 *
 * @since 0.1.0
 */

import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { executePlan, makePlanner, type PlannedStep, type Planner, type Skill } from "@toolplane/compose"
import {
  ApprovalDenied,
  type ExecutionContext,
  type ExecutionContextInit,
  ExecutionFailed,
  isToolError,
  listAllTools,
  type Tool,
  type ToolResult,
  type ToolService,
  toolErrorFromJson,
  toolErrorToJson,
  toToolError,
} from "@toolplane/foundation"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as EntityId from "effect/cluster/EntityId"
import * as Sharding from "effect/cluster/Sharding"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as Activity from "effect/workflow/Activity"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { RunNotFound, RunnerClosed } from "./errors.js"
import { askCaller } from "./internal/elicitation.js"
import {
  approvalDeferred,
  engineLayer,
  expiryClock,
  runnerAddress,
  SkillWorkflow,
} from "./internal/engine.js"
import { type Opened, openTables } from "./internal/openTables.js"
import type { RunRecord, StepPosition, StepRecord } from "./internal/runTables.js"
import type { RunInfo, RunStatus } from "./run.js"
import { type ApproveOptions, makeRunStore, type RunStore } from "./runStore.js"

/**
 * Options of {@link openDurableRunner}.
 *
 * @since 0.1.0
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
   * The engine's shard-lock lease, in milliseconds (default 10 000; whole seconds in storage): a runner
   * refreshes its locks every third of it; when it dies, another runner takes its shards (and the runs
   * on them) over once the lease expired. A runner that closes releases its shards at once.
   */
  readonly leaseMs?: number
  /**
   * How often the engine polls storage for messages written by other processes (a run to start, a
   * decision to apply), in milliseconds. Default 200.
   */
  readonly pollMs?: number
  /** This runner's identity (and its address in the engine's runner table). Default `<hostname>/<pid>/<random>`. */
  readonly runnerId?: string
  /** How long to wait for a caller's elicitation answer before leaving the run suspended. Default 10 minutes. */
  readonly elicitationTimeoutMs?: number
  /** The clock (milliseconds) of approval expiry, for tests. Default `Date.now`. */
  readonly now?: () => number
  /**
   * Called once per approval decision (approved, rejected, expired), by the one runner of the store that
   * hands it to the engine, so that counting the calls over every runner counts each decision once. A
   * throwing listener is ignored.
   *
   * @since 0.2.0
   */
  readonly onApprovalDecided?: (decision: ApprovalDecision) => void
}

/**
 * An approval decision handed to the engine (see {@link DurableRunnerOptions.onApprovalDecided}).
 *
 * @since 0.2.0
 */
export interface ApprovalDecision {
  readonly runId: string
  readonly stepId: string
  readonly tool: string
  readonly decision: "approved" | "rejected" | "expired"
  /** `StepInfo.decidedBy`: `"elicitation"`, `"cli"`, `"console"`, `"expiry"`, `"api"`…; `"unknown"` for decisions of 0.1.0. */
  readonly channel: string
  /** From the request to the decision, in milliseconds (absent for steps requested before 0.2.0). */
  readonly waitedMs?: number
}

/**
 * Options of {@link DurableRunner.start} and {@link DurableRunner.resume}.
 *
 * @since 0.1.0
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
  /**
   * Called by {@link DurableRunner.start} with the new run's id once the run is stored, before its first
   * step (e.g. to bind a task of the calling server to the run). A throwing listener is ignored.
   *
   * @since 0.2.0
   */
  readonly onStarted?: (runId: string) => void
}

/**
 * A durable runner over one store.
 *
 * @since 0.1.0
 */
export interface DurableRunner {
  /** This runner's identity. */
  readonly runnerId: string
  /** Where the runs are (the file, or the database URL without its password). */
  readonly location: string
  /**
   * The run store of this runner's storage (reads runs, records decisions), e.g. for answering a run's
   * approval from another process's request; the runner still hands the decision on ({@link DurableRunner.resume}).
   *
   * @since 0.2.0
   */
  readonly store: RunStore
  /**
   * Starts a workflow execution of `skill` and waits until it completes, fails or suspends (whichever
   * runner of the store executes it).
   */
  start(skill: Skill, input?: Readonly<Record<string, unknown>>, options?: RunOptions): Promise<RunInfo>
  /**
   * Continues a run: hands a decision taken anywhere (or an approval now overdue) to the engine and
   * waits for the run to settle. Completed steps are replayed from the engine's storage (never
   * re-executed); a step interrupted by a crash is re-executed only when its tool is idempotent
   * (`idempotentHint` or `readOnlyHint`). A run still waiting for approval stays suspended. A run another
   * runner is executing is left to it: its current state is returned, status `running`.
   */
  resume(runId: string, options?: RunOptions): Promise<RunInfo>
  /**
   * What {@link DurableRunner.poll} does, for every run; call it once at start-up. (The engine itself
   * resumes the runs of the shards this runner acquires.)
   */
  recover(): Promise<RunInfo[]>
  /**
   * Hands the decisions taken in any process (approved, rejected, expired) and the approvals now overdue
   * to the engine, and returns the runs continued that way, plus the runs of dead runners this runner
   * took over since the last poll, once settled. Runners polling at once split the decisions between them.
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
  list(options?: { readonly status?: RunStatus }): Promise<RunInfo[]>
  show(runId: string): Promise<RunInfo>
  /**
   * Waits (up to two seconds) for the runs this runner is executing to settle, then shuts the engine
   * down (a step in progress gets up to half the lease to finish; the shards are then released, so
   * another runner takes the unfinished runs over from their next step) and closes the store. Calls
   * still waiting for a run reject with {@link RunnerClosed}.
   */
  close(): Promise<void>
}

const DAY_MS = 24 * 60 * 60 * 1000
const SETTLED: ReadonlySet<RunStatus> = new Set(["suspended", "completed", "failed", "cancelled"])

const isIdempotent = (tool: Tool | undefined): boolean =>
  tool?.annotations?.idempotentHint === true || tool?.annotations?.readOnlyHint === true

/** What a step activity returns (stored by the engine): the tool's result, or the JSON of its error. */
type StepOutcome =
  | { readonly ok: true; readonly result: ToolResult }
  | { readonly ok: false; readonly error: unknown }

/** Thrown out of a step whose workflow suspended (a pending approval): stops `executePlan`. */
class Suspended extends Error {}
/**
 * Thrown into the plan when the engine gives the run up (its runner closes, or its shard moves to another
 * runner): an activity the engine no longer runs is not a failed step.
 */
class HandedOver extends Error {}

/** A run waits for the engine: suspended, with a decision the engine has not applied yet. */
const awaitsEngine = (info: RunInfo): boolean =>
  info.status === "suspended" &&
  info.steps.some((s) => s.status === "approved" || s.status === "rejected" || s.status === "expired")

/**
 * Opens a durable runner on `options.storage`: a SQLite file (embedded default) or a PostgreSQL URL
 * (distributed). Several runners may share one store: the engine splits its shards between them, and
 * a dead runner's shards (and runs) go to the others once its lease expires.
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
 * await durable.recover() // hand over decisions taken while no runner was up
 * const run = await durable.start(deploy, { version: "1.2.3" })
 * if (run.status === "suspended") await durable.approve(run.runId, "deploy")
 * await durable.close()
 * ```
 * @since 0.1.0
 */
export const openDurableRunner = async (options: DurableRunnerOptions): Promise<DurableRunner> => {
  const opened = await openTables(options.storage)
  try {
    return await makeDurableRunner(opened, options)
  } catch (error) {
    await opened.close()
    throw error
  }
}

const makeDurableRunner = async (opened: Opened, options: DurableRunnerOptions): Promise<DurableRunner> => {
  const { tables, sql } = opened
  const db = opened.run
  /** Tells `onApprovalDecided` of a decision this runner claimed the hand-over of. */
  const reportDecision = (runId: string, step: StepRecord | undefined): void => {
    const listener = options.onApprovalDecided
    if (listener === undefined || step === undefined) return
    if (step.status !== "approved" && step.status !== "rejected" && step.status !== "expired") return
    const requested = step.requestedAt === undefined ? undefined : Date.parse(step.requestedAt)
    try {
      listener({
        runId,
        stepId: step.stepId,
        tool: step.tool,
        decision: step.status,
        channel: step.decidedBy ?? "unknown",
        ...(requested !== undefined && step.updatedMs !== undefined
          ? { waitedMs: Math.max(0, step.updatedMs - requested) }
          : {}),
      })
    } catch {
      // A listener's failure is not the run's.
    }
  }
  const now = options.now ?? Date.now
  const store = makeRunStore(opened, now)
  const ttl = options.approvalTtlMs ?? DAY_MS
  // Under three seconds, the engine's shard-lock operations (bounded by a third of the lease) time out
  // on a loaded machine and the runner gives its shards up.
  const leaseMs = Math.max(3000, options.leaseMs ?? 10_000)
  const owner = options.runnerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  // How the engine stores the address in its runner table (`host:port`).
  const ownerAddress = `${runnerAddress(owner).host}:${runnerAddress(owner).port}`
  const service = options.service
  let toolsPromise: Promise<Map<string, Tool>> | undefined
  const tools = (): Promise<Map<string, Tool>> => {
    toolsPromise ??= listAllTools(service).then((list) => new Map(list.map((t) => [t.id, t])))
    return toolsPromise
  }
  const needsApproval =
    options.approval ??
    ((_step: PlannedStep, tool: Tool | undefined) => tool?.annotations?.readOnlyHint !== true)
  const planner = async (): Promise<Planner> =>
    options.planner ?? makePlanner({ tools: [...(await tools()).keys()] })

  /** Runs whose workflow body executes in this process right now. */
  const active = new Set<string>()
  /**
   * For the next poll: runs this runner took over from another (dead or closed) runner, and runs its
   * engine continued with a decision nobody had handed over yet.
   */
  const takenOver = new Set<string>()
  /** Wakes the waiters of a run when this process writes its status. */
  const listeners = new Map<string, Set<() => void>>()
  /** Set when `close` stops the engine: a call still waiting for a run then gets `RunnerClosed`. */
  let stopping = false
  const notify = (runId: string) => {
    for (const wake of listeners.get(runId) ?? []) wake()
  }
  const setRun = (runId: string, status: RunStatus, error?: unknown) =>
    tables
      .setRun(
        runId,
        status,
        status === "running" ? { owner, ownerAddress, leaseMs, error } : { error },
        now(),
      )
      .pipe(Effect.tap(() => Effect.sync(() => notify(runId))))

  // ---- the workflow: one execution per run ----

  /** The activity of one step: calls the tool through the service and journals its outcome. */
  const stepActivity = (
    runId: string,
    position: StepPosition,
    tool: Tool | undefined,
    request: Parameters<ToolService["callTool"]>[0],
    args: Readonly<Record<string, unknown>>,
  ) =>
    Activity.make({
      name: `step/${position.id}`,
      success: Schema.Any,
      execute: Effect.promise(async (signal): Promise<StepOutcome> => {
        const idempotent = isIdempotent(tool)
        const row = await db(tables.step(runId, position.id))
        // The engine delivers an activity again when its runner died before the result was stored.
        if (row?.status === "completed" && row.result !== undefined) return { ok: true, result: row.result }
        let executions = 0
        if (!idempotent) {
          if (row?.status === "started") {
            const error = toolErrorToJson(
              new ExecutionFailed({
                toolId: position.tool,
                cause: {
                  name: "Interrupted",
                  message: `step "${position.id}" was interrupted by a crash and its tool is not idempotent, so it is not re-executed`,
                },
                retryable: false,
              }),
            )
            await db(tables.finishStarted(runId, position.id, row.executions, "failed", error, now()))
            return { ok: false, error }
          }
          // Marked before the call: a crash during it is detected, not repeated.
          executions = await db(tables.startStep(runId, position, args, now()))
        }
        const record = async (status: "completed" | "failed", result: unknown) => {
          // A runner whose activity was interrupted (its shard went to another runner) writes nothing
          // more: the fenced update refuses a non-idempotent step the other runner settled.
          if (!idempotent)
            await db(tables.finishStarted(runId, position.id, executions, status, result, now()))
          else if (!signal.aborted) await db(tables.recordStep(runId, position, args, status, result, now()))
        }
        let result: ToolResult
        try {
          result = await service.callTool({ ...request, arguments: args })
        } catch (error) {
          const failure = toolErrorToJson(toToolError(error, position.tool))
          await record("failed", failure)
          return { ok: false, error: failure }
        }
        await record(result.isError === true ? "failed" : "completed", result)
        return { ok: true, result }
      }),
    })

  const body = (payload: { readonly runId: string }, executionId: string) =>
    Effect.gen(function* () {
      const runId = payload.runId
      const instance = yield* WorkflowEngine.WorkflowInstance
      const engine = yield* WorkflowEngine.WorkflowEngine
      const services = yield* Effect.context<WorkflowEngine.WorkflowInstance>()
      const stored = yield* tables.run(runId)
      // A cancelled run is final: the engine may still replay it (a takeover, a late wake-up), it runs nothing.
      if (stored === undefined || stored.info.status === "cancelled") return
      if (stored.info.status === "running" && stored.info.owner !== undefined && stored.info.owner !== owner)
        takenOver.add(runId)
      active.add(runId)
      yield* setRun(runId, "running")
      const skill = stored.skill as Skill
      const known = yield* Effect.promise(() => tools())
      const plan = (yield* Effect.promise(() => planner())).plan(skill)
      let index = 0
      let handedOver = false
      /** Runs an effect of this workflow (an activity, an await) from the plan executor's promises. */
      const inWorkflow = <A, E>(
        effect: Effect.Effect<A, E, WorkflowEngine.WorkflowInstance | WorkflowEngine.WorkflowEngine>,
        signal: AbortSignal,
      ) =>
        Effect.runPromiseExitWith(
          services as Context.Context<WorkflowEngine.WorkflowInstance | WorkflowEngine.WorkflowEngine>,
        )(effect, { signal }).then((exit) => {
          if (instance.suspended) throw new Suspended()
          return exit
        })

      /** The approval gate of a step: resolves with the arguments to run it with, or throws. */
      const gate = async (
        step: PlannedStep,
        position: StepPosition,
        tool: Tool | undefined,
        args: Readonly<Record<string, unknown>>,
        signal: AbortSignal,
      ): Promise<Readonly<Record<string, unknown>>> => {
        let entry = await db(tables.step(runId, step.id))
        if (entry === undefined) {
          const expiresAt = Number.isFinite(ttl) ? now() + ttl : null
          await db(tables.requestApproval(runId, position, args, tool?.inputSchema, expiresAt, now()))
          // A durable wake-up at the expiry, so the run fails on time even if nobody polls.
          if (Number.isFinite(ttl))
            await db(engine.scheduleClock(SkillWorkflow, { executionId, clock: expiryClock(step.id, ttl) }))
          entry = await db(tables.step(runId, step.id))
        }
        if (entry?.status === "awaiting_approval") {
          if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now()) {
            await db(
              tables.decide(
                runId,
                step.id,
                "expired",
                { reason: `approval expired at ${entry.expiresAt}`, channel: "expiry" },
                now(),
              ),
            )
          } else {
            // Suspends the workflow until the decision's deferred is done (or the expiry clock rings).
            await db(setRun(runId, "suspended"))
            await inWorkflow(DurableDeferred.await(approvalDeferred(step.id)), signal)
            await db(setRun(runId, "running"))
          }
          entry = await db(tables.step(runId, step.id))
          if (entry?.status === "awaiting_approval") {
            // Woken by the expiry clock before the runner's clock says so: wait again.
            await db(setRun(runId, "suspended"))
            instance.suspended = true
            throw new Suspended()
          }
        }
        // A decision recorded elsewhere that reached this run without a hand-over (the engine replayed
        // the run, e.g. after taking it over): this runner hands it over, for its next poll to report.
        if (
          (entry?.status === "approved" || entry?.status === "rejected" || entry?.status === "expired") &&
          (await db(tables.claimDelivery(runId, step.id)))
        ) {
          takenOver.add(runId)
          reportDecision(runId, entry)
        }
        if (entry?.status === "rejected" || entry?.status === "expired")
          throw new ApprovalDenied({ toolId: step.tool, ...(entry.reason ? { reason: entry.reason } : {}) })
        return entry?.approvedArguments ?? args
      }

      const journaled: ToolService = {
        listTools: (request) => service.listTools(request),
        callTool: async (request): Promise<ToolResult> => {
          if (handedOver) throw new HandedOver()
          const step = plan.steps[index++]
          if (step === undefined || step.tool !== request.name)
            throw new ExecutionFailed({
              toolId: request.name,
              cause: {
                name: "PlanMismatch",
                message: `the plan of run ${runId} does not call "${request.name}" here`,
              },
              retryable: false,
            })
          const position = { id: step.id, index: index - 1, tool: step.tool }
          // A cancelled run executes no further step (checked again after an approval wait).
          const stopIfCancelled = async () => {
            if ((await db(tables.run(runId)))?.info.status === "cancelled")
              throw new ExecutionFailed({
                toolId: step.tool,
                cause: {
                  name: "RunCancelled",
                  message: `run ${runId} was cancelled before step "${step.id}"`,
                },
                retryable: false,
              })
          }
          await stopIfCancelled()
          const tool = known.get(step.tool)
          const controller = new AbortController()
          let args: Readonly<Record<string, unknown>> = request.arguments ?? {}
          if (needsApproval(step, tool)) {
            args = await gate(step, position, tool, args, controller.signal)
            await stopIfCancelled()
          }
          const exit = await inWorkflow(stepActivity(runId, position, tool, request, args), controller.signal)
          if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) {
            handedOver = true
            throw new HandedOver()
          }
          if (Exit.isFailure(exit))
            throw new ExecutionFailed({
              toolId: step.tool,
              cause: { name: "ActivityFailed", message: Cause.pretty(exit.cause) },
              retryable: false,
            })
          const outcome = exit.value as StepOutcome
          if (outcome.ok) return outcome.result
          throw toolErrorFromJson(outcome.error) ?? new Error(String((outcome.error as Error)?.message))
        },
      }
      const outcome = yield* Effect.promise(() =>
        executePlan(plan, journaled, {
          input: stored.input,
          ...(options.context ? { context: options.context } : {}),
        }),
      )
      if (instance.suspended) return yield* Workflow.suspend(instance)
      // The run stays as it is, in the engine and in the runs table, until the engine ends this execution;
      // the next owner replays it from its last stored step.
      if (handedOver) return yield* Effect.never
      if (outcome.ok) yield* setRun(runId, "completed")
      else {
        const failure = outcome.error!
        yield* setRun(runId, "failed", {
          message: failure.message,
          stepId: failure.stepId,
          error: isToolError(failure.error) ? toolErrorToJson(failure.error) : String(failure.error),
        })
      }
    }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          active.delete(payload.runId)
          notify(payload.runId)
        }),
      ),
      Effect.orDie,
    )

  const workflowLayer = SkillWorkflow.toLayer(body)
  const runtime = ManagedRuntime.make(
    workflowLayer.pipe(
      Layer.provideMerge(
        engineLayer({ runnerId: owner, leaseMs, pollMs: Math.max(10, options.pollMs ?? 200) }),
      ),
      Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)),
      // The engine logs to the console by default; a library stays quiet.
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "None")),
    ),
  )
  await runtime.runPromise(Effect.void)

  // ---- waiting, and handing decisions to the engine ----

  const read = async (runId: string): Promise<RunRecord> => {
    const run = await db(tables.run(runId))
    if (run === undefined) throw new RunNotFound({ runId, storage: tables.location })
    return run
  }

  /**
   * Waits until the run settles. `full`: until it is suspended, completed or failed (wherever it
   * executes). Otherwise a run another runner is executing is returned as it is (`running`).
   * `afterSeq`: only a state written after that one counts.
   */
  const settle = (
    runId: string,
    full: boolean,
    afterSeq = -1,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<RunInfo> =>
    // Once the engine stops, the storage a waiting call reads is closed under it: say what happened.
    waitForRun(runId, full, afterSeq, deadline).catch((error: unknown) => {
      throw stopping ? new RunnerClosed({ runId, storage: tables.location }) : error
    })

  const waitForRun = async (
    runId: string,
    full: boolean,
    afterSeq: number,
    deadline: number,
  ): Promise<RunInfo> => {
    for (;;) {
      if (stopping) throw new RunnerClosed({ runId, storage: tables.location })
      let wake!: () => void
      const woken = new Promise<void>((resolve) => {
        wake = resolve
      })
      let set = listeners.get(runId)
      if (set === undefined) listeners.set(runId, (set = new Set()))
      set.add(wake)
      try {
        const run = await read(runId)
        const info = run.info
        const fresh = run.seq > afterSeq
        if (
          fresh &&
          SETTLED.has(info.status) &&
          !awaitsEngine(info) &&
          !active.has(runId) &&
          // A suspended run counts once the engine stored its suspension (a crash right after would
          // otherwise make the next owner run it again from its last stored step).
          (info.status !== "suspended" || (await engineSuspended(run.executionId)))
        )
          return info
        if (!full && fresh && info.status === "running" && !active.has(runId) && info.owner !== owner)
          return info
        if (Date.now() >= deadline) return info
        const timer = setTimeout(wake, active.has(runId) ? 1000 : 50)
        await woken
        clearTimeout(timer)
      } finally {
        set.delete(wake)
        if (set.size === 0) listeners.delete(runId)
      }
    }
  }

  const engineSuspended = (executionId: string): Promise<boolean> =>
    runtime
      .runPromise(SkillWorkflow.poll(executionId))
      .then((result) => Option.isSome(result) && result.value._tag === "Suspended")

  const deliver = (executionId: string, stepId: string, status: string) =>
    runtime.runPromise(
      DurableDeferred.done(approvalDeferred(stepId), {
        token: DurableDeferred.tokenFromExecutionId(approvalDeferred(stepId), {
          workflow: SkillWorkflow,
          executionId,
        }),
        exit: Exit.succeed(status),
      }),
    )

  /** Hands one decision (or overdue approval) to the engine; true when this runner did. */
  const handOver = async (runId: string, stepId: string): Promise<boolean> => {
    const step = await db(tables.step(runId, stepId))
    if (step === undefined) return false
    if (step.status === "awaiting_approval") {
      if (step.expiresAt === undefined || Date.parse(step.expiresAt) > now()) return false
      await db(
        tables.decide(
          runId,
          stepId,
          "expired",
          { reason: `approval expired at ${step.expiresAt}`, channel: "expiry" },
          now(),
        ),
      )
    }
    if ((await read(runId)).info.status === "cancelled") return false
    if (!(await db(tables.claimDelivery(runId, stepId)))) return false
    const run = await read(runId)
    const decided = await db(tables.step(runId, stepId))
    reportDecision(runId, decided)
    await deliver(run.executionId, stepId, decided?.status ?? "decided")
    return true
  }

  const continueRun = async (runId: string): Promise<RunInfo> => {
    const run = await read(runId)
    let handed = false
    for (const step of run.info.steps)
      if (step.status !== "completed" && step.status !== "started" && step.status !== "failed")
        handed = (await handOver(runId, step.stepId)) || handed
    return settle(runId, handed || awaitsEngine((await read(runId)).info), handed ? run.seq : -1)
  }

  /** The runs whose shard this runner holds that another runner left running: the engine resumes them here. */
  const orphans = async (): Promise<string[]> => {
    const running = await db(tables.runsIn(["running"]))
    const held = await runtime.runPromise(
      Effect.gen(function* () {
        const sharding = yield* Sharding.Sharding
        return running.filter(
          (r) =>
            r.owner !== owner &&
            sharding.hasShardId(sharding.getShardId(EntityId.make(r.executionId), "default")),
        )
      }),
    )
    return held.map((r) => r.id)
  }

  const poll = async (): Promise<RunInfo[]> => {
    const ids: string[] = []
    for (const pending of await db(tables.pendingDecisions(now())))
      if ((await handOver(pending.runId, pending.stepId)) && !ids.includes(pending.runId))
        ids.push(pending.runId)
    for (const runId of [...takenOver, ...(await orphans())]) {
      takenOver.delete(runId)
      if (!ids.includes(runId)) ids.push(runId)
    }
    const out: RunInfo[] = []
    // A run the engine does not continue within two leases is returned as it is.
    for (const runId of ids) out.push(await settle(runId, true, -1, Date.now() + 2 * leaseMs + 5000))
    return out
  }

  let closed = false
  /** Asks the caller of a suspended run, while it is connected, and continues the run once decided. */
  const withCaller = async (info: RunInfo, caller: ExecutionContext | undefined): Promise<RunInfo> => {
    while (
      info.status === "suspended" &&
      caller?.client.elicitInput !== undefined &&
      !caller.signal.aborted
    ) {
      const waiting = info.steps.find((s) => s.status === "awaiting_approval")
      if (waiting === undefined) break
      const step = await db(tables.step(info.runId, waiting.stepId))
      if (step === undefined) break
      await askCaller({
        caller,
        store,
        runId: info.runId,
        skill: info.skill,
        step,
        tool: (await tools()).get(step.tool),
        timeoutMs: options.elicitationTimeoutMs ?? 10 * 60_000,
      })
      if ((await db(tables.step(info.runId, waiting.stepId)))?.status === "awaiting_approval") break
      info = await continueRun(info.runId)
    }
    return info
  }

  return {
    runnerId: owner,
    location: tables.location,
    store,
    start: async (skill, input = {}, runOptions = {}) => {
      ;(await planner()).plan(skill) // a skill that cannot be planned fails here, before any run exists
      const runId = randomUUID()
      const executionId = await runtime.runPromise(SkillWorkflow.executionId({ runId }))
      await db(tables.createRun(runId, executionId, skill, input, now()))
      try {
        runOptions.onStarted?.(runId)
      } catch {
        // a listener's failure is not the run's
      }
      await runtime.runPromise(SkillWorkflow.execute({ runId }, { discard: true }))
      return withCaller(await settle(runId, true), runOptions.caller)
    },
    resume: async (runId, runOptions = {}) => withCaller(await continueRun(runId), runOptions.caller),
    recover: poll,
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
      return continueRun(runId)
    },
    reject: async (runId, stepId, rejectOptions) => {
      await store.reject(runId, stepId, rejectOptions)
      return continueRun(runId)
    },
    list: (listOptions) => store.list(listOptions),
    show: (runId) => store.show(runId),
    close: async () => {
      if (closed) return
      closed = true
      const deadline = Date.now() + 2000
      while (active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      stopping = true
      for (const runId of [...listeners.keys()]) notify(runId)
      await runtime.dispose()
      await opened.close()
    },
  }
}
