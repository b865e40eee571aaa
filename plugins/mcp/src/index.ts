/**
 * @toolplane/plugin-mcp: MCP servers as Toolplane backends (stdio and Streamable HTTP), any tool
 * service served over MCP (stdio and Streamable HTTP), and the canonical ↔ MCP tool adapter. Built on
 * the official MCP TypeScript SDK.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  canonicalIdOf,
  ERROR_META_KEY,
  fromMcpTool,
  type McpAdapterOptions,
  type McpNaming,
  type McpTool,
  mcpAdapter,
  mcpToolName,
  sanitizeToolName,
  TOOL_META_KEY,
  toMcpTool,
} from "./adapter.js"
export {
  type McpBackend,
  type McpBackendConfig,
  type McpBackendOptions,
  type McpBackendStatus,
  type McpLogEntry,
  mcpBackend,
} from "./client/backend.js"
export type {
  McpConnectionState,
  McpConnectionStatus,
  McpHttpConfig,
  McpStdioConfig,
  McpTransportConfig,
  McpUpstreamAuth,
  ReconnectOptions,
} from "./client/connection.js"
export { type McpProtocolChoice, MetaKeys, MODERN_PROTOCOL_VERSION } from "./client/era.js"
export {
  type CacheHint,
  listRemoteTools,
  type RemoteTool,
  toBackendResult,
  toProgress,
} from "./client/mapping.js"
export {
  NodeStreamableHttpError,
  NodeStreamableHttpTransport,
  type NodeStreamableHttpTransportOptions,
} from "./client/nodeHttpTransport.js"
export { NodeStdioTransport, type NodeStdioTransportOptions } from "./client/nodeStdioTransport.js"
export * from "./client/oauth/index.js"
export {
  TASKS_EXTENSION,
  UPSTREAM_TASK_HANDOFF_KEY,
  UPSTREAM_TASK_META_KEY,
  type UpstreamTask,
  type UpstreamTaskHandoff,
  type UpstreamTaskHandoffOffer,
  type UpstreamTaskRelay,
  type UpstreamTaskRequestOptions,
  type UpstreamTaskStatus,
  upstreamTasksOf,
} from "./client/upstreamTasks.js"
export {
  callFailureToMcp,
  isUnreachable,
  type McpErrorKind,
  mcpErrorKind,
  mcpFailureToToolError,
  toolErrorFromResult,
  toolErrorToMcpError,
  toolErrorToResult,
} from "./errors.js"
export {
  type JwtAuthOptions,
  jwtAuth,
  type McpAuthFailure,
  type McpCaller,
  type McpHttpAuth,
  type StaticToken,
  staticTokenAuth,
} from "./server/auth.js"
export { AUTHENTICATED_CALLER_KEY, authenticatedCaller } from "./server/callerIdentity.js"
export {
  checkDnsRebinding,
  type DnsRebindingPolicy,
  dnsRebindingPolicy,
  isLoopbackHost,
  isWildcardHost,
  localHostnames,
} from "./server/dnsRebinding.js"
export { type McpHttpServerHandle, type ServeHttpOptions, serveHttp } from "./server/http.js"
export type { HttpRoute } from "./server/httpRoutes.js"
export type { McpCacheHints } from "./server/modern/cacheHints.js"
export { HeldCallErrorCode, type HeldCallOptions } from "./server/modern/heldCalls.js"
export { INPUT_KEY_META_KEY } from "./server/modern/inputRequests.js"
export type { McpPendingInput, McpPendingInputs } from "./server/modern/pendingInputs.js"
export type { TaskClaims as McpTaskClaims } from "./server/modern/taskHandles.js"
export type {
  DetailedTask as McpTask,
  TaskInputRequest as McpTaskInputRequest,
  TaskSource as McpTaskSource,
  TaskStatus as McpTaskStatus,
} from "./server/modern/taskSource.js"
export { BEFORE_TASK_META_KEY } from "./server/modern/tasks.js"
export { memoryReplicaBus, type ReplicaBus } from "./server/replicaBus.js"
export {
  CALLER_SCOPES_KEY,
  callerScopes,
  createMcpServer,
  type McpRequestInfo,
  type McpServeOptions,
  type McpServerHandle,
  mcpLog,
} from "./server/serve.js"
export { type McpStdioServerHandle, type ServeStdioOptions, serveStdio } from "./server/stdio.js"
