/**
 * Tool calls: what a client asks for, and what a backend receives.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "./jsonSchema.js"

/**
 * A call as a client sends it.
 *
 * @since 0.1.0
 */
export interface ToolCall {
  /** Correlation id chosen by the caller (e.g. a model's `tool_call_id`). */
  readonly id?: string
  /** The tool id, `namespace/name`. */
  readonly name: string
  readonly arguments?: Readonly<Record<string, unknown>>
  /** Continuation cursor from a previous page of the same call. */
  readonly cursor?: string
}

/**
 * A call as a backend receives it: arguments are already validated (and defaulted) when `validated` is
 * true; `resume` is the verified opaque state of a continuation, never a raw cursor.
 *
 * @since 0.1.0
 */
export interface BackendCall {
  readonly toolId: string
  readonly arguments: Readonly<Record<string, unknown>>
  readonly resume?: JsonValue
  readonly validated?: boolean
}
