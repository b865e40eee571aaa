/**
 * Multi round-trip requests (2026-07-28) for the client requests a tool, or an approver in front of it,
 * makes during a call. A stateless client cannot be sent `elicitation/create` in the middle of a call;
 * instead the call stops at the first request without an answer and the result is
 * `InputRequiredResult` (`resultType: "input_required"`, `inputRequests`, a signed `requestState`). The
 * client retries the same call with `inputResponses` and the state; the call runs again from the start
 * and each request is answered from the verified state's earlier answers or this round's responses.
 * Answers are accepted only through a valid state (bound to the caller, the tool and the arguments), so
 * an approval cannot be forged by sending `inputResponses` alone: without a state the call asks again.
 *
 * @internal
 */
import { type ClientRequests, TaggedToolError } from "@toolplane/foundation"
import { HOLD_CALL, INPUT_KEY_META_KEY } from "../../internal/callMarks.js"
import { ModernProtocolError } from "./errors.js"
import { ModernErrorCode } from "./protocol.js"
import type { RequestStateBinding, RequestStateClaims, RequestStates } from "./requestState.js"

export { HOLD_CALL, INPUT_KEY_META_KEY }

/**
 * Thrown out of a client request that has no answer yet: the call stops there. A typed error that is not
 * retryable, so a runner does not run a read-only tool again (which would ask again, under a new key).
 */
export class InputRequiredSignal extends TaggedToolError("InputRequired")<{ readonly key: string }> {
  readonly code = "INPUT_REQUIRED"
  override get message(): string {
    return `the client's input "${this.key}" is required to continue`
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Thrown out of a client request the client did not declare the capability for: the call stops there. */
export class MissingCapabilitySignal extends TaggedToolError("MissingClientCapability")<{
  readonly capability: string
}> {
  readonly code = "MISSING_CLIENT_CAPABILITY"
  override get message(): string {
    return `the client did not declare the "${this.capability}" capability`
  }
}

/**
 * Whether an error is the signal that stopped a request at a client request (an input to ask for, or a
 * capability the client lacks): a handler lets it pass, the round turns it into the answer.
 */
export const isInputSignal = (error: unknown): boolean =>
  error instanceof InputRequiredSignal || error instanceof MissingCapabilitySignal

/**
 * One round of a request: the answers it may use, and the input requests it ends up needing. Both client
 * requests are always offered: one the client did not declare the capability for stops the call, which
 * is then answered `-32021 MissingRequiredClientCapability` naming it (there is nobody to ask).
 */
export class InputRound {
  readonly #answers: Record<string, unknown>
  readonly pending: Record<string, { method: string; params: Record<string, unknown> }> = {}
  /** The capabilities a client request needed that the client did not declare. */
  readonly missing: Record<string, Record<string, never>> = {}
  #counts = new Map<string, number>()
  readonly client: ClientRequests
  /** Answers a request made by a call already running upstream (marked {@link HOLD_CALL}): the call is held. */
  hold?: (key: string, request: { method: string; params: Record<string, unknown> }) => Promise<never>

  private constructor(answers: Record<string, unknown>, capabilities: Readonly<Record<string, unknown>>) {
    this.#answers = answers
    const ask =
      (capability: string, method: string) =>
      (params: Readonly<Record<string, unknown>>): Promise<never> => {
        if (!isObject(capabilities[capability])) {
          this.missing[capability] = {}
          return Promise.reject(new MissingCapabilitySignal({ capability }))
        }
        return this.#ask(method, capability, params)
      }
    this.client = {
      elicitInput: ask("elicitation", "elicitation/create"),
      createMessage: ask("sampling", "sampling/createMessage"),
      listRoots: (params = {}) => ask("roots", "roots/list")(params),
      capabilities,
    }
  }

  /**
   * The round of a request: with no `requestState`, a first round (no answers, whatever
   * `inputResponses` says); with one, the state is verified and its answers plus this round's responses
   * (for the keys it asked for) are used. A bad state is `-32602` with the reason.
   */
  static open(
    states: RequestStates,
    binding: RequestStateBinding,
    params: Readonly<Record<string, unknown>>,
    capabilities: Readonly<Record<string, unknown>>,
  ): { round: InputRound; claims?: RequestStateClaims } {
    const state = params.requestState
    if (state === undefined) return { round: new InputRound({}, capabilities) }
    const verdict = states.verify(state, binding)
    if (!verdict.ok)
      throw new ModernProtocolError(
        ModernErrorCode.InvalidParams,
        `Invalid requestState: ${describeRefusal(verdict.reason)}`,
        { data: { reason: verdict.reason } },
      )
    const answers: Record<string, unknown> = { ...verdict.claims.r }
    const responses = isObject(params.inputResponses) ? params.inputResponses : {}
    for (const key of verdict.claims.k) if (Object.hasOwn(responses, key)) answers[key] = responses[key]
    return { round: new InputRound(answers, capabilities), claims: verdict.claims }
  }

  /** The answers of this round (for the next state). */
  get answers(): Readonly<Record<string, unknown>> {
    return this.#answers
  }

  get needsInput(): boolean {
    return Object.keys(this.pending).length > 0
  }

  #ask(method: string, prefix: string, raw: Readonly<Record<string, unknown>>): Promise<never> {
    const meta = isObject(raw._meta) ? raw._meta : undefined
    const named = meta?.[INPUT_KEY_META_KEY]
    let key: string
    if (typeof named === "string" && named.length > 0) key = named
    else {
      const n = (this.#counts.get(prefix) ?? 0) + 1
      this.#counts.set(prefix, n)
      key = `${prefix}-${n}`
    }
    if (Object.hasOwn(this.#answers, key)) return Promise.resolve(this.#answers[key] as never)
    let params: Record<string, unknown> = { ...raw }
    if (meta !== undefined) {
      // (and the before-task mark, which only chooses between this and a task's input request)
      const { [INPUT_KEY_META_KEY]: _key, "toolplane.dev/beforeTask": _before, ...rest } = meta
      params = { ...raw }
      if (Object.keys(rest).length > 0) params._meta = rest
      else delete params._meta
    }
    if (this.hold !== undefined && (raw as { [HOLD_CALL]?: unknown })[HOLD_CALL] === true)
      return this.hold(key, { method, params })
    this.pending[key] = { method, params }
    return Promise.reject(new InputRequiredSignal({ key }))
  }
}

const describeRefusal = (reason: string): string =>
  ({
    malformed: "it is not a request state this server issued",
    signature: "its signature does not match (altered, or issued by another server)",
    expired: "it has expired; send the request again without requestState",
    caller: "it was issued to another caller",
    method: "it was issued for another tool or method",
    arguments: "it was issued for other arguments",
    replayed: "it was already used",
    rejected: "an operator rejected the request it belongs to",
  })[reason] ?? reason
