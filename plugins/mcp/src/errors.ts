/**
 * How Toolplane's typed errors cross MCP, following the MCP 2025-11-25 tools specification: unknown
 * tools and malformed requests are protocol errors (JSON-RPC `-32602 Invalid params`); input
 * validation, execution, timeout, approval, rate-limit and backend failures are tool execution errors
 * (`isError: true` results) the model can read and correct. Either way the typed error's JSON travels
 * along (`_meta["toolplane.dev/error"]` of the result, `data["toolplane.dev/error"]` of the JSON-RPC
 * error), so a Toolplane client rebuilds the same error class.
 *
 * @since 0.1.0
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult } from "@modelcontextprotocol/server"
import {
  BackendUnavailable,
  causeOf,
  ExecutionFailed,
  InvalidArguments,
  isToolError,
  Timeout,
  type ToolError,
  type ToolErrorJson,
  ToolNotFound,
  toolErrorFromJson,
  toolErrorToJson,
} from "@toolplane/foundation"
import { ERROR_META_KEY } from "./adapter.js"

/**
 * Where a typed error goes on the wire.
 *
 * @since 0.1.0
 */
export type McpErrorKind = "protocol" | "result"

const PROTOCOL: Partial<Record<ToolError["_tag"], number>> = {
  ToolNotFound: ErrorCode.InvalidParams,
  InvalidCursor: ErrorCode.InvalidParams,
  ExpiredCursor: ErrorCode.InvalidParams,
  InvalidTool: ErrorCode.InternalError,
  ToolConflict: ErrorCode.InternalError,
  ConfigError: ErrorCode.InternalError,
  ConversionFailed: ErrorCode.InternalError,
  // MCP 2025-11-25 (server/resources, server/prompts): unknown resource -32002, unknown prompt -32602.
  ResourceNotFound: -32002,
  PromptNotFound: ErrorCode.InvalidParams,
}

/**
 * Whether a typed error becomes a JSON-RPC error (`"protocol"`) or an `isError` result (`"result"`).
 *
 * @since 0.1.0
 */
export const mcpErrorKind = (error: ToolError): McpErrorKind =>
  PROTOCOL[error._tag] !== undefined ? "protocol" : "result"

/**
 * The JSON form of a typed error as sent to MCP clients: `toolErrorToJson` without stack traces
 * (unless `exposeStacks`).
 *
 * @since 0.1.0
 */
export const wireErrorJson = (error: ToolError, exposeStacks = false): ToolErrorJson => {
  const json = toolErrorToJson(error) as ToolErrorJson & { cause?: unknown }
  if (exposeStacks || typeof json.cause !== "object" || json.cause === null) return json
  const { stack: _stack, ...cause } = json.cause as Record<string, unknown>
  return { ...json, cause }
}

/**
 * A JSON-RPC error for a typed error (for `tools/list`, and `tools/call` failures the spec makes
 * protocol errors).
 *
 * @since 0.1.0
 */
export const toolErrorToMcpError = (error: ToolError, exposeStacks = false): McpError =>
  new WireError(PROTOCOL[error._tag] ?? ErrorCode.InternalError, error.message, {
    [ERROR_META_KEY]: wireErrorJson(error, exposeStacks),
  })

/**
 * An `McpError` whose message goes on the wire as is: the SDK's constructor prefixes
 * "MCP error CODE:", and the receiving client prefixes it again.
 */
/**
 * A JSON-RPC error whose message goes on the wire exactly as given (no "MCP error CODE:" prefix, which
 * the receiving client adds itself).
 *
 * @since 0.1.0
 */
export const wireError = (code: number, message: string, data?: unknown): McpError =>
  new WireError(code, message, data)

/**
 * An error about to be sent as a JSON-RPC error, with the SDK's "MCP error CODE: " prefix removed
 * (however many times it was added on the way), so the client shows it once.
 *
 * @since 0.1.0
 */
export const unprefixed = (error: McpError): McpError => {
  const message = error.message.replace(/^(MCP error -?\d+: )+/, "")
  return message === error.message ? error : new WireError(error.code, message, error.data)
}

class WireError extends McpError {
  constructor(code: number, message: string, data: unknown) {
    super(code, message, data)
    this.message = message
  }
}

/**
 * An `isError` result for a typed error.
 *
 * @since 0.1.0
 */
export const toolErrorToResult = (error: ToolError, exposeStacks = false): CallToolResult => ({
  content: [{ type: "text", text: error.message }],
  isError: true,
  _meta: { [ERROR_META_KEY]: wireErrorJson(error, exposeStacks) },
})

/**
 * What a `tools/call` handler does with a failure: throws a JSON-RPC error or returns an `isError`
 * result. Anything that is not a typed error becomes `-32603 Internal error` without details.
 *
 * @since 0.1.0
 */
export const callFailureToMcp = (error: unknown, exposeStacks = false): CallToolResult => {
  if (error instanceof McpError) throw error
  if (!isToolError(error)) throw new McpError(ErrorCode.InternalError, "Internal error")
  if (mcpErrorKind(error) === "protocol") throw toolErrorToMcpError(error, exposeStacks)
  return toolErrorToResult(error, exposeStacks)
}

/**
 * The typed error a Toolplane server attached to an `isError` result, if any.
 *
 * @since 0.1.0
 */
export const toolErrorFromResult = (result: {
  readonly isError?: boolean | undefined
  readonly _meta?: Readonly<Record<string, unknown>> | undefined
}): ToolError | undefined =>
  result.isError === true && result._meta ? toolErrorFromJson(result._meta[ERROR_META_KEY]) : undefined

const isConnectionError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|ETIMEDOUT|UND_ERR)/.test(code))
    return true
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Error && cause !== error && isConnectionError(cause)) return true
  return (
    (error.name === "TypeError" && /fetch failed|network|socket/i.test(error.message)) ||
    /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|Not connected/i.test(error.message)
  )
}

/**
 * Whether an error from the MCP client means the server cannot be reached (closed connection, dead
 * process, refused or reset socket, expired session).
 *
 * @since 0.1.0
 */
export const isUnreachable = (error: unknown): boolean => {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed
  const code = (error as { code?: unknown } | undefined)?.code
  // StreamableHTTPError carries the HTTP status: 404 means the session is gone.
  if (error instanceof Error && error.name === "StreamableHTTPError" && (code === 404 || code === undefined))
    return true
  return isConnectionError(error)
}

/**
 * Maps a failure of an MCP request made for `toolId` to a typed error: a Toolplane error carried in
 * the JSON-RPC error's data is rebuilt; a closed connection is {@link BackendUnavailable}; an SDK
 * request timeout is {@link Timeout}; `Invalid params` is {@link ToolNotFound} (unknown tool) or
 * {@link InvalidArguments}; anything else is {@link ExecutionFailed}.
 *
 * @since 0.1.0
 */
export const mcpFailureToToolError = (
  error: unknown,
  info: { readonly backend: string; readonly toolId: string; readonly timeoutMs?: number },
): ToolError => {
  if (isToolError(error)) return error
  if (error instanceof McpError) {
    const data = error.data as Record<string, unknown> | undefined
    const carried =
      typeof data === "object" && data !== null ? toolErrorFromJson(data[ERROR_META_KEY]) : undefined
    if (carried) return carried
    const message = error.message.replace(/^MCP error -?\d+: /, "")
    switch (error.code) {
      case ErrorCode.ConnectionClosed:
        return new BackendUnavailable({ backend: info.backend, toolId: info.toolId, reason: message })
      case ErrorCode.RequestTimeout:
        return new Timeout({ toolId: info.toolId, timeoutMs: info.timeoutMs ?? 0 })
      case ErrorCode.InvalidParams:
        if (/unknown tool|not found|no such tool/i.test(message))
          return new ToolNotFound({ toolId: info.toolId, suggestions: [] })
        return new InvalidArguments({
          toolId: info.toolId,
          issues: [{ path: "", rule: "server", message }],
        })
      default:
        return new ExecutionFailed({
          toolId: info.toolId,
          cause: { name: "McpError", message: `${message} (code ${error.code})` },
        })
    }
  }
  if (isUnreachable(error))
    return new BackendUnavailable({
      backend: info.backend,
      toolId: info.toolId,
      reason: (error as Error).message,
    })
  return new ExecutionFailed({ toolId: info.toolId, cause: causeOf(error) })
}
