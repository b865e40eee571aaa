/**
 * One tool call made on behalf of a model, as every provider plugin's tool-call runner makes it.
 *
 * @since 0.1.0
 */
import type { ExecutionContextInit } from "./executionContext.js"
import { isToolError } from "./toolError.js"
import { formatToolError } from "./toolErrorText.js"
import type { ToolResult } from "./toolResult.js"
import type { ToolService } from "./toolService.js"

/**
 * A model's tool call, resolved to a tool: the model's call id, the name the model used, the tool id
 * behind it and the arguments.
 *
 * @since 0.1.0
 */
export interface ModelToolCall {
  readonly callId: string
  /** The name the model called (the provider name), used in failure texts. */
  readonly name: string
  readonly toolId: string
  readonly arguments: Record<string, unknown>
  /** Context for the call; the call id is added. */
  readonly context?: ExecutionContextInit
}

/**
 * What {@link callToolForModel} resolves to: the result, or the failure as the text the model reads
 * (see `formatToolError`) with its stable code.
 *
 * @since 0.1.0
 */
export type ModelToolCallOutcome =
  | { readonly ok: true; readonly result: ToolResult }
  | { readonly ok: false; readonly errorCode: string; readonly text: string }

/**
 * Calls the tool through `service` with the model's call id (as the request id and the context's
 * `callId`). Never rejects: a typed failure becomes `formatToolError`'s text under the model's name for
 * the tool, anything else thrown an `EXECUTION_FAILED` text with its message.
 *
 * @example
 * ```ts
 * const outcome = await callToolForModel(service, { callId: "call_1", name: "weather__current", toolId: "weather/current", arguments: { city: "Oslo" } })
 * const text = outcome.ok ? toolResultText(outcome.result) : outcome.text
 * ```
 * @since 0.1.0
 */
export const callToolForModel = async (
  service: ToolService,
  call: ModelToolCall,
): Promise<ModelToolCallOutcome> => {
  try {
    const result = await service.callTool({
      id: call.callId,
      name: call.toolId,
      arguments: call.arguments,
      context: { ...(call.context ?? {}), callId: call.callId },
    })
    return { ok: true, result }
  } catch (error) {
    if (isToolError(error))
      return { ok: false, errorCode: error.code, text: formatToolError(error, call.name) }
    return {
      ok: false,
      errorCode: "EXECUTION_FAILED",
      text: `Error [EXECUTION_FAILED] calling "${call.name}": ${error instanceof Error ? error.message : String(error)}`,
    }
  }
}
