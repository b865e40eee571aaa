/**
 * The run store: reads runs and records approval decisions, without executing anything. A durable runner
 * (`openDurableRunner`) executes the runs; the store is what an operator (or the `toolplane runs`
 * command) uses from another process, against the same SQLite file or PostgreSQL database.
 *
 * @since 0.1.0
 */
import { InvalidArguments, type JsonSchema, validatorFor } from "@toolplane/foundation"
import { ApprovalNotPending, RunNotCancellable, RunNotFound } from "./errors.js"
import { approvalElicitation, approvalInputKey, recordApprovalAnswer } from "./internal/elicitation.js"
import { type Opened, openTables } from "./internal/openTables.js"
import { type StepRecord, stepInfo } from "./internal/runTables.js"
import type { RunInfo, RunStatus, StepInfo } from "./run.js"

/**
 * Options of an approval.
 *
 * @since 0.1.0
 */
export interface ApproveOptions {
  /** Replacement arguments for the step, validated against the tool's input schema. */
  readonly arguments?: Readonly<Record<string, unknown>>
  /**
   * Through which channel the decision was taken, recorded with it (`StepInfo.decidedBy`, the approval
   * metrics' `channel`): e.g. `"cli"`, `"console"`, `"elicitation"`. Default `"api"`.
   *
   * @since 0.2.0
   */
  readonly channel?: string
}

/**
 * The approvals waiting in a store.
 *
 * @since 0.2.0
 */
export interface PendingApprovals {
  /** Steps waiting for approval, in every run of the store. */
  readonly count: number
  /** When the oldest of them started waiting (epoch ms); absent when none waits. */
  readonly oldestRequestedAt?: number
}

/**
 * Reads runs and decides approvals in a store.
 *
 * @since 0.1.0
 */
export interface RunStore {
  /** Where the runs are (the file, or the database URL without its password). */
  readonly location: string
  /** The runs, oldest first, optionally of one status. */
  list(options?: { readonly status?: RunStatus }): Promise<RunInfo[]>
  /** One run; rejects with {@link RunNotFound}. */
  show(runId: string): Promise<RunInfo>
  /**
   * Approves a step waiting for approval, optionally with edited arguments (validated against the tool's
   * input schema: `InvalidArguments` naming each issue). Rejects with {@link ApprovalNotPending} when the
   * step is not waiting (or its approval expired). The run continues when a runner resumes it.
   */
  approve(runId: string, stepId: string, options?: ApproveOptions): Promise<StepInfo>
  /** Rejects a step waiting for approval; the run fails with `ApprovalDenied` when resumed. */
  reject(
    runId: string,
    stepId: string,
    options?: { readonly reason?: string; readonly channel?: string },
  ): Promise<StepInfo>
  /**
   * How many steps wait for approval in the whole store and since when the oldest waits (one query; for
   * metrics).
   *
   * @since 0.2.0
   */
  pendingApprovals(): Promise<PendingApprovals>
  /**
   * Cancels a running or suspended run: a final `cancelled` state that no runner resumes, so its remaining
   * steps never execute. Rejects with {@link RunNotFound}, or {@link RunNotCancellable} naming the final
   * state the run already reached.
   *
   * @since 0.2.0
   */
  cancel(runId: string, options?: { readonly reason?: string; readonly channel?: string }): Promise<RunInfo>
  /**
   * The approval a run waits on, as the elicitation its caller is asked: the input key (`approve-<step>`,
   * the same on every replica) and the MCP `elicitation/create` params (a preview of the call, an
   * `approve` checkbox, the editable arguments). `undefined` when no step waits or the run is cancelled.
   * Rejects with {@link RunNotFound}.
   *
   * @since 0.2.0
   */
  approvalElicitation(
    runId: string,
  ): Promise<{ readonly key: string; readonly params: Readonly<Record<string, unknown>> } | undefined>
  /**
   * Records an answer to {@link RunStore.approvalElicitation} given under its key in `inputResponses`
   * (other keys are ignored): accept with `approve` approves (with edited arguments, re-validated),
   * accept without it or decline rejects, cancel records nothing. `"ignored"` when nothing was recorded
   * (no answer under the key, nothing waiting, or decided meanwhile elsewhere); `{ problem }` for an
   * invalid edit. The run continues when a runner resumes it.
   *
   * @since 0.2.0
   */
  answerApprovalElicitation(
    runId: string,
    inputResponses: Readonly<Record<string, unknown>>,
    options?: { readonly channel?: string },
  ): Promise<"recorded" | "ignored" | { readonly problem: string }>
  close(): Promise<void>
}

/** @internal */
export const makeRunStore = (opened: Opened, now: () => number = Date.now): RunStore => {
  const { tables, run: db } = opened
  const show = async (runId: string): Promise<RunInfo> => {
    const run = await db(tables.run(runId))
    if (run === undefined) throw new RunNotFound({ runId, storage: tables.location })
    return run.info
  }
  const pending = async (runId: string, stepId: string): Promise<StepRecord> => {
    if ((await show(runId)).status === "cancelled")
      throw new ApprovalNotPending({ runId, stepId, state: "run cancelled" })
    const step = await db(tables.step(runId, stepId))
    if (step === undefined) throw new ApprovalNotPending({ runId, stepId, state: "unknown" })
    if (
      step.status === "awaiting_approval" &&
      step.expiresAt !== undefined &&
      Date.parse(step.expiresAt) <= now()
    ) {
      await db(
        tables.decide(
          runId,
          stepId,
          "expired",
          { reason: `approval expired at ${step.expiresAt}`, channel: "expiry" },
          now(),
        ),
      )
      throw new ApprovalNotPending({ runId, stepId, state: "expired" })
    }
    if (step.status !== "awaiting_approval")
      throw new ApprovalNotPending({ runId, stepId, state: step.status })
    return step
  }
  const decided = async (runId: string, stepId: string): Promise<StepInfo> =>
    stepInfo((await db(tables.step(runId, stepId)))!)
  const notPending = async (runId: string, stepId: string) =>
    new ApprovalNotPending({
      runId,
      stepId,
      state: (await db(tables.step(runId, stepId)))?.status ?? "unknown",
    })
  /** The step a run waits on, with its stored record; undefined when none waits or the run is cancelled. */
  const waitingStep = async (runId: string): Promise<{ run: RunInfo; step: StepRecord } | undefined> => {
    const run = await show(runId)
    const waiting = run.steps.find((s) => s.status === "awaiting_approval")
    if (run.status === "cancelled" || waiting === undefined) return undefined
    const step = await db(tables.step(runId, waiting.stepId))
    return step === undefined ? undefined : { run, step }
  }
  const store: RunStore = {
    location: tables.location,
    list: (options = {}) => db(tables.list(options.status)),
    show,
    approve: async (runId, stepId, options = {}) => {
      const step = await pending(runId, stepId)
      let approvedArguments: Readonly<Record<string, unknown>> | undefined
      if (options.arguments !== undefined) {
        approvedArguments = options.arguments
        if (step.inputSchema !== undefined) {
          const checked = await validatorFor(step.inputSchema as JsonSchema, step.tool).validate(
            options.arguments,
          )
          if (!checked.ok) throw new InvalidArguments({ toolId: step.tool, issues: checked.issues })
        }
      }
      const channel = options.channel ?? "api"
      if (!(await db(tables.decide(runId, stepId, "approved", { approvedArguments, channel }, now()))))
        throw await notPending(runId, stepId)
      return decided(runId, stepId)
    },
    reject: async (runId, stepId, options = {}) => {
      await pending(runId, stepId)
      if (
        !(await db(
          tables.decide(
            runId,
            stepId,
            "rejected",
            { reason: options.reason ?? "rejected", channel: options.channel ?? "api" },
            now(),
          ),
        ))
      )
        throw await notPending(runId, stepId)
      return decided(runId, stepId)
    },
    pendingApprovals: () => db(tables.awaiting()),
    cancel: async (runId, options = {}) => {
      await show(runId)
      const fields = { reason: options.reason ?? "cancelled", channel: options.channel ?? "api" }
      if (!(await db(tables.cancelRun(runId, fields, now()))))
        throw new RunNotCancellable({ runId, state: (await show(runId)).status })
      return show(runId)
    },
    approvalElicitation: async (runId) => {
      const found = await waitingStep(runId)
      if (found === undefined) return undefined
      const { run, step } = found
      return {
        key: approvalInputKey(step.stepId),
        params: approvalElicitation(runId, run.skill, step, step.inputSchema),
      }
    },
    answerApprovalElicitation: async (runId, inputResponses, options = {}) => {
      const found = await waitingStep(runId)
      if (found === undefined) return "ignored"
      const answer = inputResponses[approvalInputKey(found.step.stepId)]
      if (typeof answer !== "object" || answer === null) return "ignored"
      return recordApprovalAnswer(
        store,
        runId,
        found.step,
        found.step.inputSchema,
        answer,
        options.channel ?? "api",
      )
    },
    close: () => opened.close(),
  }
  return store
}

/**
 * Opens (creating the tables if needed) the runs in `storage`, a SQLite file or a PostgreSQL URL, as a
 * store.
 *
 * @example
 * ```ts
 * const store = await openRunStore("runs.db") // or "postgres://toolplane@db.internal:5432/toolplane"
 * for (const run of await store.list({ status: "suspended" })) {
 *   const waiting = run.steps.find((s) => s.status === "awaiting_approval")
 *   if (waiting?.tool === "mail/send")
 *     await store.approve(run.runId, waiting.stepId, { arguments: { to: "ops@example.com" } })
 * }
 * await store.close()
 * ```
 * @since 0.1.0
 */
export const openRunStore = async (storage: string): Promise<RunStore> =>
  makeRunStore(await openTables(storage))
