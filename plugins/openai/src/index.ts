/**
 * @toolplane/plugin-openai: export Toolplane tools to OpenAI (Chat Completions and Responses function
 * tools, strict structured-output schemas, reversible names, tool search with namespaces and deferred
 * loading), import OpenAI tools, and run the model's tool calls and whole agent loops through any tool
 * service.
 *
 * @packageDocumentation
 * @since 0.1.0
 */

/** The text a model reads for a failed call (foundation's, re-exported for 0.1.0 users). @since 0.1.0 */
export { formatToolError } from "@toolplane/foundation"
export {
  type ExportedTool,
  type OpenAIApi,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolSet,
  type OpenAIToolsOptions,
  openAIAdapter,
  toChatCompletionsTools,
  toOpenAITools,
  toResponsesTools,
} from "./adapter.js"
export {
  type AgentLoopResult,
  type AgentStep,
  type ChatAgentLoopOptions,
  type ChatCompletionsClient,
  type ResponsesAgentLoopOptions,
  type ResponsesClient,
  runAgentLoop,
} from "./agentLoop.js"
export { type OpenAICodeMode, type OpenAICodeModeOptions, openAICodeMode } from "./codeMode.js"
export {
  type FunctionToolEntry,
  type FunctionTools,
  functionTools,
  looseParameters,
} from "./functionTool.js"
export {
  fromOpenAITool,
  fromOpenAITools,
  type ImportOptions,
  type OpenAIFunctionDefinition,
  type OpenAIToolInput,
} from "./import.js"
export {
  mapToolNames,
  OPENAI_NAME_MAX_LENGTH,
  OPENAI_NAME_PATTERN,
  type RenameReason,
  type ToolNameMap,
  type ToolRename,
} from "./names.js"
export { restoreArguments } from "./restoreArguments.js"
export {
  type ChatCompletionLike,
  type ChatMessageLike,
  type ChatToolCallLike,
  type ChatToolMessage,
  executeToolCalls,
  type FunctionCallOutputItem,
  formatToolResult,
  type ResponseItemLike,
  type ResponseLike,
  type ResponsesOutputContent,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCallOutcome,
  toResponsesOutput,
} from "./runToolCalls.js"
export { STRICT_LIMITS } from "./strictLimits.js"
export {
  type SchemaLoss,
  STRICT_FORMATS,
  type StrictSchemaResult,
  toStrictSchema,
  WRAPPED_ROOT_PROPERTY,
} from "./strictSchema.js"
export {
  type OpenAINamespaceFunction,
  type OpenAINamespaceTool,
  type OpenAIToolSearchOptions,
  type OpenAIToolSearchSet,
  type OpenAIToolSearchTool,
  toOpenAIToolSearch,
} from "./toolSearch.js"
