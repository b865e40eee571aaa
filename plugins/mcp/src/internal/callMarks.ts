/**
 * The marks the client side (an MCP backend relaying for a caller) and the serving side (stateless
 * serving, tasks) agree on for the client requests a call makes: which input key a request asks under,
 * whether it comes from a call already running upstream, and whether it must be asked before the call
 * becomes a task. Both sides import them from here, so neither reaches into the other's modules.
 *
 * @internal
 */

/**
 * Set (to `true`) on the params of a client request made by a call that is already running upstream:
 * a stateless client's answer must resume that call, not re-run it. A symbol, so it never reaches JSON.
 */
export const HOLD_CALL: unique symbol = Symbol.for("toolplane.holdCall")

/** The `_meta` key naming a client request's input key (defined with the task-state contract in foundation). */
export { INPUT_KEY_META_KEY } from "@toolplane/foundation"

/**
 * The `_meta` key of an elicitation or sampling request's params that asks it before the call becomes a
 * task: made while the call has no task yet, it is a multi round-trip input request (`InputRequiredResult`
 * with a signed `requestState`) and the task is created on the retry that answers it. Removed before
 * the request reaches the client.
 *
 * @since 0.2.0
 */
export const BEFORE_TASK_META_KEY = "toolplane.dev/beforeTask"
