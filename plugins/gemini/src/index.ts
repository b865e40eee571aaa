/**
 * @toolplane/plugin-gemini: export Toolplane tools as Gemini function declarations (the OpenAPI-subset
 * schema Gemini accepts, reversible names), import function declarations, and run the model's
 * `functionCall` parts and whole agent loops through any tool service.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  type ExportedTool,
  type GeminiFunctionDeclaration,
  type GeminiToolSet,
  type GeminiToolsOptions,
  geminiAdapter,
  toGeminiTools,
} from "./adapter.js"
export {
  type AgentLoopOptions,
  type AgentLoopResult,
  type AgentStep,
  type GenerateContentClient,
  runAgentLoop,
} from "./agentLoop.js"
export {
  type FunctionDeclarationInput,
  type FunctionDeclarationsBackendOptions,
  type FunctionHandler,
  fromFunctionDeclaration,
  fromFunctionDeclarations,
  functionDeclarationsBackend,
  geminiSchemaToJsonSchema,
  type ImportOptions,
} from "./import.js"
export {
  GEMINI_NAME_MAX_LENGTH,
  GEMINI_NAME_PATTERN,
  mapToolNames,
  type RenameReason,
  readableName,
  type ToolNameMap,
  type ToolRename,
} from "./names.js"
export {
  type ContentLike,
  executeToolCalls,
  type FunctionResponseMedia,
  type FunctionResponsePartOut,
  functionResponseOf,
  type GenerateContentResponseLike,
  type PartLike,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCallOutcome,
} from "./runToolCalls.js"
export {
  type ArgumentShape,
  GEMINI_FORMATS,
  GEMINI_PROPERTY_PATTERN,
  type GeminiSchema,
  type GeminiSchemaResult,
  restoreArguments,
  type SchemaLoss,
  toGeminiArguments,
  toGeminiSchema,
} from "./schema.js"
