/**
 * The run store: reads runs and records approval decisions in a run file, without executing anything.
 * A durable runner (`openDurableRunner`) executes the runs; the store is what an operator (or the
 * `toolplane runs` command) uses from another process.
 *
 * @since 0.2.0
 */
import { InvalidArguments, type JsonSchema, validatorFor } from "@toolplane/foundation"
import { ApprovalNotPending, RunNotFound } from "./errors.js"
import { Journal } from "./internal/journal.js"
import type { RunInfo, RunStatus, StepInfo } from "./run.js"

/**
 * Options of an approval.
 *
 * @since 0.2.0
 */
export interface ApproveOptions {
  /** Replacement arguments for the step, validated against the tool's input schema. */
  readonly arguments?: Readonly<Record<string, unknown>>
}

/**
 * Reads runs and decides approvals in a run file.
 *
 * @since 0.2.0
 */
export interface RunStore {
  /** The runs, oldest first, optionally of one status. */
  list(options?: { readonly status?: RunStatus }): RunInfo[]
  /** One run; throws {@link RunNotFound}. */
  show(runId: string): RunInfo
  /**
   * Approves a step waiting for approval, optionally with edited arguments (validated against the tool's
   * input schema: `InvalidArguments` naming each issue). Throws {@link ApprovalNotPending} when the step
   * is not waiting (or its approval expired). The run continues when a runner resumes it.
   */
  approve(runId: string, stepId: string, options?: ApproveOptions): Promise<StepInfo>
  /** Rejects a step waiting for approval; the run fails with `ApprovalDenied` when resumed. */
  reject(runId: string, stepId: string, options?: { readonly reason?: string }): StepInfo
  close(): void
}

/** @internal */
export const makeRunStore = (journal: Journal, now: () => number = Date.now): RunStore => {
  const show = (runId: string): RunInfo => {
    const run = journal.runRow(runId)
    if (run === undefined) throw new RunNotFound({ runId, file: journal.file })
    return run.info
  }
  const pending = (runId: string, stepId: string) => {
    show(runId)
    const step = journal.step(runId, stepId)
    if (step === undefined) throw new ApprovalNotPending({ runId, stepId, state: "unknown" })
    if (
      step.status === "awaiting_approval" &&
      step.expiresAt !== undefined &&
      Date.parse(step.expiresAt) <= now()
    ) {
      journal.decide(runId, stepId, "expired", { reason: `approval expired at ${step.expiresAt}` }, now())
      throw new ApprovalNotPending({ runId, stepId, state: "expired" })
    }
    if (step.status !== "awaiting_approval")
      throw new ApprovalNotPending({ runId, stepId, state: step.status })
    return step
  }
  const decided = (runId: string, stepId: string): StepInfo => {
    const step = journal.step(runId, stepId)!
    const { inputSchema: _schema, ...info } = step
    return info
  }
  return {
    list: (options = {}) => journal.list(options.status),
    show,
    approve: async (runId, stepId, options = {}) => {
      const step = pending(runId, stepId)
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
      if (!journal.decide(runId, stepId, "approved", { approvedArguments }, now()))
        throw new ApprovalNotPending({
          runId,
          stepId,
          state: journal.step(runId, stepId)?.status ?? "unknown",
        })
      return decided(runId, stepId)
    },
    reject: (runId, stepId, options = {}) => {
      pending(runId, stepId)
      if (!journal.decide(runId, stepId, "rejected", { reason: options.reason ?? "rejected" }, now()))
        throw new ApprovalNotPending({
          runId,
          stepId,
          state: journal.step(runId, stepId)?.status ?? "unknown",
        })
      return decided(runId, stepId)
    },
    close: () => journal.close(),
  }
}

/**
 * Opens (creating if needed) the run file `file` as a store.
 *
 * @example
 * ```ts
 * const store = openRunStore("runs.db")
 * for (const run of store.list({ status: "suspended" })) {
 *   const waiting = run.steps.find((s) => s.status === "awaiting_approval")
 *   if (waiting?.tool === "mail/send")
 *     await store.approve(run.runId, waiting.stepId, { arguments: { to: "ops@example.com" } })
 * }
 * store.close()
 * ```
 * @since 0.2.0
 */
export const openRunStore = (file: string): RunStore => makeRunStore(new Journal(file))
