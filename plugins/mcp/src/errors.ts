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
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from "@modelcontextprotocol/server"
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
  ToolNotFound: ProtocolErrorCode.InvalidParams,
  InvalidCursor: ProtocolErrorCode.InvalidParams,
  ExpiredCursor: ProtocolErrorCode.InvalidParams,
  InvalidTool: ProtocolErrorCode.InternalError,
  ToolConflict: ProtocolErrorCode.InternalError,
  ConfigError: ProtocolErrorCode.InternalError,
  ConversionFailed: ProtocolErrorCode.InternalError,
  // MCP 2025-11-25 (server/resources, server/prompts): unknown resource -32002, unknown prompt -32602.
  ResourceNotFound: -32002,
  PromptNotFound: ProtocolErrorCode.InvalidParams,
}

/**
 * The JSON-RPC error codes MCP SDK v1 gave a closed connection and a request timeout. SDK v2 reports
 * both as an `SdkError` (string codes) instead; a peer or a v1 component may still send these.
 */
const LEGACY_CONNECTION_CLOSED = -32000
const LEGACY_REQUEST_TIMEOUT = -32001

/**
 * A JSON-RPC error: MCP SDK v2's `ProtocolError` (brand-matched across the client and server packages),
 * or MCP SDK v1's `McpError` (recognised by its name and numeric code, without importing v1), which the
 * 2025 serving side still throws.
 *
 * @since 0.2.0
 */
export const isJsonRpcError = (
  error: unknown,
): error is Error & { readonly code: number; readonly data?: unknown } =>
  error instanceof ProtocolError ||
  (error instanceof Error &&
    error.name === "McpError" &&
    typeof (error as { code?: unknown }).code === "number")

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
export const toolErrorToMcpError = (error: ToolError, exposeStacks = false): ProtocolError =>
  new ProtocolError(PROTOCOL[error._tag] ?? ProtocolErrorCode.InternalError, error.message, {
    [ERROR_META_KEY]: wireErrorJson(error, exposeStacks),
  })

/**
 * A JSON-RPC error whose message goes on the wire exactly as given (no "MCP error CODE:" prefix, which
 * the receiving client adds itself).
 *
 * @since 0.1.0
 */
export const wireError = (code: number, message: string, data?: unknown): ProtocolError =>
  new ProtocolError(code, message, data)

/**
 * `message` without the "MCP error CODE: " prefix an SDK adds when it raises a JSON-RPC error (however
 * many times it was added on the way); a receiving client adds it once itself.
 *
 * @internal
 */
export const withoutMcpErrorPrefix = (message: string): string => message.replace(/^(MCP error -?\d+: )+/, "")

/**
 * An error about to be sent as a JSON-RPC error, with the SDK's "MCP error CODE: " prefix removed
 * (however many times it was added on the way), so the client shows it once.
 *
 * @since 0.1.0
 */
export const unprefixed = <E extends Error & { readonly code: number; readonly data?: unknown }>(
  error: E,
): E => {
  const message = withoutMcpErrorPrefix(error.message)
  if (message === error.message) return error
  if (error instanceof ProtocolError) return new ProtocolError(error.code, message, error.data) as E
  // Another JSON-RPC error class (MCP SDK v1's `McpError`): a copy of the same class, so the code that
  // recognises it by class still does.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as E, error)
  Object.defineProperty(copy, "message", { value: message, writable: true, configurable: true })
  if (error.stack !== undefined)
    Object.defineProperty(copy, "stack", { value: error.stack, writable: true, configurable: true })
  return copy
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
  if (isJsonRpcError(error)) throw error
  if (!isToolError(error)) throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error")
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
  if (isJsonRpcError(error)) return error.code === LEGACY_CONNECTION_CLOSED
  if (error instanceof SdkHttpError) return error.status === 404
  if (error instanceof SdkError)
    return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected
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
  if (error instanceof SdkError && !(error instanceof SdkHttpError)) {
    const message = error.message
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        return new BackendUnavailable({ backend: info.backend, toolId: info.toolId, reason: message })
      case SdkErrorCode.RequestTimeout:
        return new Timeout({ toolId: info.toolId, timeoutMs: info.timeoutMs ?? 0 })
      default:
        return new ExecutionFailed({
          toolId: info.toolId,
          cause: { name: "SdkError", message: `${message} (${error.code})` },
        })
    }
  }
  if (isJsonRpcError(error)) {
    const data = error.data as Record<string, unknown> | undefined
    const carried =
      typeof data === "object" && data !== null ? toolErrorFromJson(data[ERROR_META_KEY]) : undefined
    if (carried) return carried
    const message = error.message.replace(/^MCP error -?\d+: /, "")
    switch (error.code) {
      case LEGACY_CONNECTION_CLOSED:
        return new BackendUnavailable({ backend: info.backend, toolId: info.toolId, reason: message })
      case LEGACY_REQUEST_TIMEOUT:
        return new Timeout({ toolId: info.toolId, timeoutMs: info.timeoutMs ?? 0 })
      case ProtocolErrorCode.InvalidParams:
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
