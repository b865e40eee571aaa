/**
 * Asking the caller of a run to approve a step, through MCP elicitation (`ctx.client.elicitInput`).
 * The form has an `approve` checkbox plus one field per top-level argument MCP elicitation can show
 * (string, number, integer, boolean, string enum), pre-filled with the step's arguments, so the user can
 * edit them. The answer is recorded through the run store, like any other approver's:
 *
 * - accept with `approve` → approved, with the edited arguments when they differ (re-validated against
 *   the tool's input schema; an invalid edit is shown back to the user, up to three times);
 * - accept without `approve`, or decline → rejected;
 * - cancel, no answer within the timeout, the caller gone (aborted, disconnected), an elicitation
 *   error → nothing recorded: the run stays suspended in storage for `toolplane runs approve`.
 *
 * A decision taken meanwhile elsewhere (`toolplane runs approve`) wins: the store refuses the second.
 *
 * @internal
 */
import { type ExecutionContext, INPUT_KEY_META_KEY, InvalidArguments, type Tool } from "@toolplane/foundation"
import type { RunInfo } from "../run.js"
import type { StepRecord } from "./runTables.js"

/** What the answer of an approval is recorded through (the run store's own methods). */
export interface ApprovalRecorder {
  show(runId: string): Promise<RunInfo>
  approve(
    runId: string,
    stepId: string,
    options: { readonly arguments?: Readonly<Record<string, unknown>>; readonly channel?: string },
  ): Promise<unknown>
  reject(
    runId: string,
    stepId: string,
    options: { readonly reason?: string; readonly channel?: string },
  ): Promise<unknown>
}

const APPROVE = "approve"

type Field = Record<string, unknown>

/** The editable fields of a tool's input schema (top-level primitives only). */
const editableFields = (schema: unknown, args: Readonly<Record<string, unknown>>): Record<string, Field> => {
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> } | undefined)
    ?.properties
  const fields: Record<string, Field> = {}
  if (properties === undefined) return fields
  for (const [name, property] of Object.entries(properties)) {
    if (name === APPROVE) continue
    const type = property.type
    const value = args[name]
    const base: Field = {
      ...(typeof property.title === "string" ? { title: property.title } : { title: name }),
      ...(typeof property.description === "string" ? { description: property.description } : {}),
    }
    if (Array.isArray(property.enum) && property.enum.every((v) => typeof v === "string"))
      fields[name] = {
        type: "string",
        enum: property.enum,
        ...base,
        ...(typeof value === "string" ? { default: value } : {}),
      }
    else if (type === "string")
      fields[name] = { type: "string", ...base, ...(typeof value === "string" ? { default: value } : {}) }
    else if (type === "number" || type === "integer")
      fields[name] = {
        type,
        ...base,
        ...(typeof property.minimum === "number" ? { minimum: property.minimum } : {}),
        ...(typeof property.maximum === "number" ? { maximum: property.maximum } : {}),
        ...(typeof value === "number" ? { default: value } : {}),
      }
    else if (type === "boolean")
      fields[name] = { type: "boolean", ...base, ...(typeof value === "boolean" ? { default: value } : {}) }
  }
  return fields
}

const preview = (args: unknown): string => {
  const json = JSON.stringify(args, null, 2) ?? "{}"
  return json.length > 2000 ? `${json.slice(0, 2000)}\n… (${json.length} characters)` : json
}

/** The input key under which a run's step asks for approval (the same on every replica). */
export const approvalInputKey = (stepId: string): string => `approve-${stepId}`

/**
 * The elicitation request asking to approve `step` of run `runId` (MCP `elicitation/create` params): the
 * preview, an `approve` checkbox and the editable arguments; `problem` is shown first (an invalid edit).
 */
export const approvalElicitation = (
  runId: string,
  skill: string,
  step: StepRecord,
  schema: unknown,
  problem = "",
): Record<string, unknown> => {
  const fields = editableFields(schema, step.arguments)
  return {
    message:
      `${problem}Run ${runId} of the skill "${skill}" is about to call "${step.tool}" ` +
      `(step "${step.stepId}") with these arguments:\n${preview(step.arguments)}\n` +
      (Object.keys(fields).length > 0 ? "You may edit the arguments below. " : "") +
      `Accept to run it, decline to reject the run. Without an answer the run waits for ` +
      `\`toolplane runs approve ${runId} ${step.stepId}\`.`,
    requestedSchema: {
      type: "object",
      properties: {
        [APPROVE]: { type: "boolean", title: "Run this step", default: true },
        ...fields,
      },
      required: [APPROVE],
    },
    _meta: { [INPUT_KEY_META_KEY]: approvalInputKey(step.stepId) },
  }
}

/**
 * Records an elicitation answer to the approval of `step` in the store: accept with `approve` approves
 * (with the edited arguments when they differ, re-validated), accept without it or decline rejects;
 * cancel or anything else records nothing (`"ignored"`). An invalid edit is `{ problem }`, the text to
 * show when asking again. A decision taken meanwhile elsewhere wins (`"ignored"`).
 */
export const recordApprovalAnswer = async (
  store: ApprovalRecorder,
  runId: string,
  step: StepRecord,
  schema: unknown,
  answer: { readonly action?: unknown; readonly content?: unknown } | undefined,
  channel: string,
): Promise<"recorded" | "ignored" | { readonly problem: string }> => {
  if (answer === undefined || (answer.action !== "accept" && answer.action !== "decline")) return "ignored"
  const content = (
    typeof answer.content === "object" && answer.content !== null ? answer.content : {}
  ) as Record<string, unknown>
  try {
    if (answer.action === "decline" || content[APPROVE] === false) {
      await store.reject(runId, step.stepId, {
        reason: answer.action === "decline" ? "declined by the caller" : "not approved by the caller",
        channel,
      })
      return "recorded"
    }
    const edited: Record<string, unknown> = { ...step.arguments }
    for (const name of Object.keys(editableFields(schema, step.arguments)))
      if (content[name] !== undefined) edited[name] = content[name]
    const changed = JSON.stringify(edited) !== JSON.stringify(step.arguments)
    await store.approve(runId, step.stepId, changed ? { arguments: edited, channel } : { channel })
    return "recorded"
  } catch (error) {
    if (error instanceof InvalidArguments)
      return {
        problem: `Those arguments are invalid: ${error.issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}.\n`,
      }
    // ApprovalNotPending (someone decided first) or anything else: the run keeps what storage says.
    return "ignored"
  }
}

/**
 * Waits for `promise`; resolves `undefined` on timeout, abort, or when `settledElsewhere` (checked every
 * half second) says the wait is moot.
 */
const within = <T>(
  promise: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal,
  settledElsewhere: () => Promise<boolean>,
): Promise<T | undefined> =>
  new Promise((resolve) => {
    const done = (value: T | undefined) => {
      clearTimeout(timer)
      clearInterval(watch)
      signal.removeEventListener("abort", onAbort)
      resolve(value)
    }
    const onAbort = () => done(undefined)
    const timer = setTimeout(onAbort, timeoutMs)
    let checking = false
    const watch = setInterval(() => {
      if (checking) return
      checking = true
      settledElsewhere()
        .then(
          (settled) => {
            if (settled) done(undefined)
          },
          () => {},
        )
        .finally(() => {
          checking = false
        })
    }, 500)
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(done, () => done(undefined))
  })

export interface AskCallerOptions {
  readonly caller: ExecutionContext
  readonly store: ApprovalRecorder
  readonly runId: string
  readonly skill: string
  readonly step: StepRecord
  readonly tool: Tool | undefined
  readonly timeoutMs: number
}

/**
 * Asks; records the decision, if any, in the store. Stops waiting when the step is decided elsewhere (a
 * task answered on another replica, `toolplane runs approve`) or the run is cancelled. Never throws.
 */
export const askCaller = async (options: AskCallerOptions): Promise<void> => {
  const { caller, store, runId, step } = options
  const elicit = caller.client.elicitInput
  if (elicit === undefined) return
  const schema = options.tool?.inputSchema ?? step.inputSchema
  const settledElsewhere = async () => {
    const run = await store.show(runId)
    return (
      run.status === "cancelled" ||
      run.steps.find((s) => s.stepId === step.stepId)?.status !== "awaiting_approval"
    )
  }
  let problem = ""
  for (let attempt = 0; attempt < 3; attempt++) {
    if (caller.signal.aborted) return
    const answer = (await within(
      elicit(approvalElicitation(runId, options.skill, step, schema, problem)),
      options.timeoutMs,
      caller.signal,
      settledElsewhere,
    )) as { action?: string; content?: Record<string, unknown> } | undefined
    const recorded = await recordApprovalAnswer(store, runId, step, schema, answer, "elicitation")
    if (typeof recorded === "string") return
    problem = recorded.problem
  }
}
