/**
 * @toolplane/foundation: the core model and contracts of Toolplane. No I/O.
 *
 * Every export is listed here; plumbing shared between the plain and Effect forms lives in
 * `src/internal/` and is not part of the public API.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type Adapter, type Conversion, type FeatureLossWarning, unsupportedFeatures } from "./adapter.js"
export {
  type Backend,
  type BackendListener,
  type BackendMetadata,
  type BackendSpec,
  Backends,
  backendFromEffect,
  backendLayer,
  backendToEffect,
  defineBackend,
  type EffectBackend,
  type EffectBackendSpec,
  makeEffectBackend,
} from "./backend.js"
export {
  type BackendHealth,
  BackendRegistry,
  type BackendRegistryOptions,
  type RegisteredTool,
  type SelectionPolicy,
} from "./backendRegistry.js"
export {
  type CodeExecution,
  type CodeExecutor,
  codeExecutionResult,
  type ToolsetDeclaration,
} from "./codeExecutor.js"
export {
  type AudioContent,
  audio,
  type ContentAnnotations,
  type ContentBlock,
  type EmbeddedResource,
  type ImageContent,
  image,
  isContentBlock,
  type ResourceContents,
  type ResourceLink,
  resource,
  resourceLink,
  type TextContent,
  text,
} from "./content.js"
export {
  type CursorBinding,
  type CursorClaims,
  type CursorCodec,
  type CursorCodecOptions,
  type CursorKey,
  fingerprint,
  makeCursorCodec,
  randomCursorKey,
} from "./cursor.js"
export {
  bindHandlers,
  type DefineToolOptions,
  defineTool,
  type HandlerOutput,
  type HandlerRequirements,
  isToolDefinition,
  runDefinition,
  type ToolDefinition,
  type ToolHandlerContext,
  toolOf,
} from "./defineTool.js"
export {
  defineEffectEnricher,
  defineEnricher,
  type EffectEnricher,
  type EffectEnricherSpec,
  type Enricher,
  type EnricherSpec,
  Enrichers,
  enricherFromEffect,
  enricherLayer,
  enricherToEffect,
  type FollowUpLink,
  type ToolValueModel,
} from "./enricher.js"
export {
  type ClientRequests,
  CurrentContext,
  deriveContext,
  type ExecutionContext,
  type ExecutionContextInit,
  isExecutionContext,
  type LogEntry,
  makeContext,
  neverAborted,
  type Progress,
  remainingMs,
  runWithContext,
  toContext,
} from "./executionContext.js"
export { isJsonObject } from "./jsonObject.js"
export { escapeJsonPointer, resolveLocalRef, unescapeJsonPointer } from "./jsonPointer.js"
export {
  type InferSchema,
  isStandardSchema,
  type JsonSchema,
  type JsonValue,
  type SchemaFeatureUse,
  type SchemaSource,
  schemaFeatures,
  toJsonSchema,
} from "./jsonSchema.js"
export { mapConcurrent } from "./mapConcurrent.js"
export {
  callToolForModel,
  type ModelToolCall,
  type ModelToolCallOutcome,
} from "./modelToolCall.js"
export { normalizeJsonSchema, type SchemaNormalization } from "./normalizeSchema.js"
export { getOwn, setOwn } from "./ownProperty.js"
export {
  type CatalogKind,
  type CatalogListRequest,
  type CatalogPage,
  type CompleteRequest,
  type Completion,
  type CompletionRef,
  type GetPromptResult,
  type Prompt,
  type PromptArgument,
  type PromptMessage,
  type ReadResourceResult,
  type Resource,
  type ResourceCapabilities,
  type ResourceCatalog,
  type ResourceProvider,
  type ResourceTemplate,
  resourceProviderOf,
  withResources,
} from "./resourceProvider.js"
export {
  SandboxCrashed,
  SandboxError,
  type SandboxFailure,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
} from "./sandboxError.js"
export { bindTaskState, INPUT_KEY_META_KEY, TASK_STATE_KEY, type TaskStateBinding } from "./taskState.js"
export {
  byId,
  EMPTY_INPUT_SCHEMA,
  makeTool,
  normalizeTag,
  normalizeTags,
  renameTool,
  type Tool,
  type ToolAnnotations,
  type ToolFields,
  type ToolIdentity,
  type ToolSpec,
  toolDescription,
} from "./tool.js"
export type { BackendCall, ToolCall } from "./toolCall.js"
export {
  type PinnedToolDefinition,
  pinnedToolDefinition,
  type ToolDefinitionChange,
  toolDefinitionChanges,
  toolDefinitionHash,
} from "./toolDefinitionPin.js"
export {
  ApprovalDenied,
  ApprovalRequired,
  BackendUnavailable,
  Cancelled,
  ConfigError,
  ConversionFailed,
  type CoreToolError,
  type CoreToolErrorTag,
  causeOf,
  type ErrorCause,
  ExecutionFailed,
  ExpiredCursor,
  InvalidArguments,
  InvalidCursor,
  InvalidOutput,
  InvalidTool,
  isToolError,
  PromptNotFound,
  RateLimited,
  ResourceNotFound,
  registerToolErrorDecoder,
  retryableByDefault,
  TaggedToolError,
  Timeout,
  ToolConflict,
  type ToolError,
  type ToolErrorDecoder,
  type ToolErrorExtensions,
  type ToolErrorJson,
  type ToolErrorMember,
  type ToolErrorTag,
  ToolErrorTypeId,
  ToolNotFound,
  toolErrorFromJson,
  toolErrorTags,
  toolErrorToJson,
  toToolError,
  type ValidationIssue,
} from "./toolError.js"
export { formatToolError, unknownToolText } from "./toolErrorText.js"
export {
  planToolExport,
  type ToolExportEntry,
  type ToolExportOptions,
  type ToolExportPlan,
} from "./toolExport.js"
export {
  checkName,
  checkNamespace,
  formatToolId,
  isToolId,
  NAME_MAX_LENGTH,
  NAMESPACE_MAX_LENGTH,
  parseToolId,
  suggestToolIds,
  type ToolIdParts,
} from "./toolId.js"
export {
  mapToolNames,
  type RenameReason,
  readableToolName,
  type ToolNameMap,
  type ToolNameRules,
  type ToolRename,
} from "./toolNames.js"
export {
  type BackendResult,
  errorResult,
  isPage,
  isToolResult,
  type Page,
  page,
  structuredResult,
  type ToolResult,
  textResult,
  toToolResult,
} from "./toolResult.js"
export { contentBlockText, toolResultText } from "./toolResultText.js"
export {
  applyMiddleware,
  type CallToolRequest,
  defineMiddleware,
  EffectToolService,
  type ListToolsRequest,
  listAllTools,
  type Middleware,
  type PaginateOptions,
  paginateTools,
  type ToolPage,
  type ToolService,
  toolServiceFromEffect,
  toolServiceLayer,
  toolServiceToEffect,
} from "./toolService.js"
export {
  checkJsonSchema,
  compileJsonSchema,
  type ValidationResult,
  type Validator,
  validatorFor,
} from "./validator.js"
