/**
 * What a backend tells a modern (2026-07-28) server about its caller, and how it answers that server's
 * input requests. A modern server decides per request which input it may ask for from the request's
 * `clientCapabilities`, so a backend that relays for a caller declares, per request, the client
 * capabilities it can forward for that caller (elicitation, sampling, roots: those the caller has a hook
 * for and, when its protocol told them, declared). An upstream's `input_required` answer to `tools/call`,
 * `prompts/get` or `resources/read` is then answered through the caller's hooks and the request sent
 * again with the answers.
 *
 * @internal
 */

import { type ExecutionContext, ExecutionFailed } from "@toolplane/foundation"
import { isJsonRpcError } from "../errors.js"
import { BEFORE_TASK_META_KEY, INPUT_KEY_META_KEY } from "../internal/callMarks.js"
import { withElicitationDefaults } from "./elicitationDefaults.js"

/** The client requests a backend forwards to its caller: capability, MCP method and the caller's hook. */
const FORWARDED = [
  ["elicitation", "elicitation/create", "elicitInput"],
  ["sampling", "sampling/createMessage", "createMessage"],
  ["roots", "roots/list", "listRoots"],
] as const

/**
 * The client capabilities a backend can forward for the caller of `ctx`: one per client request the
 * caller has a hook for and declared (with the caller's own declaration, e.g. elicitation's modes).
 * Undefined when the caller's capabilities are not known (an in-process caller): the connection's own
 * declaration stands, and a request the caller cannot answer fails when it is asked.
 *
 * @internal
 */
export const callerCapabilities = (ctx: ExecutionContext): Record<string, unknown> | undefined => {
  const declared = ctx.client.capabilities
  if (declared === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const [capability, , hook] of FORWARDED)
    if (
      ctx.client[hook] !== undefined &&
      typeof declared[capability] === "object" &&
      declared[capability] !== null
    )
      out[capability] = declared[capability]
  return out
}

/** Input rounds a request may take before it is given up (a server asking forever). */
export const MAX_INPUT_ROUNDS = 8

/**
 * Answers a modern server's `inputRequests` through the caller's own hooks (`ctx.client`): elicitation,
 * sampling and roots. A request the caller cannot answer fails the request (typed, with `toolId` naming
 * what was asked: a tool, or a backend's prompts or resources), so it is not sent again. Each request
 * travels with the server's own name for it, so a gateway serving a modern client asks under the same
 * name.
 *
 * @internal
 */
export const answerCallerInputs = async (
  ctx: ExecutionContext,
  toolId: string,
  backend: string,
  requests: unknown,
  beforeTask = false,
): Promise<Record<string, unknown>> => {
  const fail = (message: string) =>
    new ExecutionFailed({ toolId, cause: { name: "InputRequired", message }, retryable: false })
  if (typeof requests !== "object" || requests === null)
    throw fail(`${backend} answered input_required without inputRequests`)
  const asks = Object.entries(requests as Record<string, unknown>).map(([key, value]) => {
    const { method, params } = (value ?? {}) as { method?: unknown; params?: Record<string, unknown> }
    const forwarded = FORWARDED.find(([, m]) => m === method)
    const hook = forwarded === undefined ? undefined : ctx.client[forwarded[2]]
    if (hook === undefined)
      throw fail(
        `${String(method)}: the caller does not support it (${backend} asked for input the caller cannot answer)`,
      )
    const meta = (params?._meta ?? {}) as Record<string, unknown>
    return {
      key,
      method,
      hook,
      asked: params,
      params: {
        ...params,
        // an upstream's multi round-trip request is asked before any task of the caller's
        _meta: {
          ...meta,
          [INPUT_KEY_META_KEY]: key,
          ...(beforeTask ? { [BEFORE_TASK_META_KEY]: true } : {}),
        },
      },
    }
  })
  // All at once, as the server asked them: a modern caller gets them as one round of input requests.
  const answers = await Promise.all(asks.map(({ hook, params }) => hook(params)))
  // An accepted elicitation gets the requested schema's defaults for the fields it leaves out (SEP-1034).
  return Object.fromEntries(
    asks.map(({ key, method, asked }, i) => [
      key,
      method === "elicitation/create" ? withElicitationDefaults(asked, answers[i]) : answers[i],
    ]),
  )
}

/**
 * A modern server refused a request for a client capability it needs (`-32021`,
 * `data.requiredCapabilities`) that this backend did not declare because the caller did not: the need is
 * relayed to the caller by asking its hook for that capability, which a caller that did not declare it
 * refuses (a modern caller's round then answers the caller `-32021` naming the capability). Returns
 * without effect for any other error, or when the caller's capabilities are not known.
 *
 * @internal
 */
export const relayMissingCapabilities = async (ctx: ExecutionContext, error: unknown): Promise<void> => {
  if (!isJsonRpcError(error) || error.code !== MISSING_REQUIRED_CLIENT_CAPABILITY) return
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities
  const declared = ctx.client.capabilities
  if (typeof required !== "object" || required === null || declared === undefined) return
  for (const [capability, , hook] of FORWARDED) {
    const ask = ctx.client[hook]
    if (Object.hasOwn(required, capability) && declared[capability] === undefined && ask !== undefined)
      await ask({})
  }
}

/** MCP 2026-07-28 `MissingRequiredClientCapability`. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
