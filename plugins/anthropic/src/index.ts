/**
 * @toolplane/plugin-anthropic: export Toolplane tools to the Anthropic Messages API (`input_schema`,
 * strict tool use, reversible names, tool search with `defer_loading`), import Anthropic tool
 * definitions, and run the model's `tool_use` blocks and whole agent loops through any tool service.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  type AnthropicTool,
  type AnthropicToolSet,
  type AnthropicToolsOptions,
  anthropicAdapter,
  type ExportedTool,
  toAnthropicTools,
} from "./adapter.js"
export {
  type AgentLoopOptions,
  type AgentLoopResult,
  type AgentStep,
  type MessagesClient,
  runAgentLoop,
} from "./agentLoop.js"
export {
  type AnthropicToolHandler,
  type AnthropicToolInput,
  type AnthropicToolsBackendOptions,
  anthropicToolsBackend,
  fromAnthropicTool,
  fromAnthropicTools,
  type ImportOptions,
} from "./import.js"
export {
  ANTHROPIC_NAME_MAX_LENGTH,
  ANTHROPIC_NAME_PATTERN,
  mapToolNames,
  type RenameReason,
  readableName,
  type ToolNameMap,
  type ToolRename,
} from "./names.js"
export {
  type ContentBlockLike,
  executeToolCalls,
  type MessageLike,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCallOutcome,
  type ToolResultBlock,
  type ToolResultDocument,
  type ToolResultImage,
  type ToolResultText,
  toolResultContent,
} from "./runToolCalls.js"
export {
  isSimplePattern,
  type SchemaLoss,
  STRICT_FORMATS,
  STRICT_LIMITS,
  type StrictSchemaResult,
  strictComplexity,
  toStrictSchema,
} from "./strict.js"
export {
  type AnthropicToolSearchOptions,
  type AnthropicToolSearchSet,
  type AnthropicToolSearchTool,
  anthropicToolSearchTool,
  toAnthropicToolSearch,
} from "./toolSearch.js"
