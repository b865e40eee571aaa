/**
 * @toolplane/foundation: the core model and contracts of Toolplane. No I/O.
 *
 * Every export is listed here; plumbing shared between the plain and Effect forms lives in
 * `src/internal/` and is not part of the public API.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type Adapter, type Conversion, type FeatureLossWarning, unsupportedFeatures } from "./Adapter.js"
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
} from "./Backend.js"
export {
  type BackendHealth,
  BackendRegistry,
  type BackendRegistryOptions,
  type RegisteredTool,
  type SelectionPolicy,
} from "./BackendRegistry.js"
export {
  type CodeExecution,
  type CodeExecutor,
  codeExecutionResult,
  type ToolsetDeclaration,
} from "./CodeExecutor.js"
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
} from "./Content.js"
export {
  type CursorBinding,
  type CursorClaims,
  type CursorCodec,
  type CursorCodecOptions,
  type CursorKey,
  fingerprint,
  makeCursorCodec,
  randomCursorKey,
} from "./Cursor.js"
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
} from "./Enricher.js"
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
} from "./ExecutionContext.js"
export {
  type InferSchema,
  isStandardSchema,
  type JsonSchema,
  type JsonValue,
  type SchemaFeatureUse,
  type SchemaSource,
  schemaFeatures,
  toJsonSchema,
} from "./JsonSchema.js"
export {
  SandboxCrashed,
  SandboxError,
  type SandboxFailure,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
} from "./SandboxError.js"
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
} from "./Tool.js"
export type { BackendCall, ToolCall } from "./ToolCall.js"
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
  RateLimited,
  retryableByDefault,
  TaggedToolError,
  Timeout,
  ToolConflict,
  type ToolError,
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
} from "./ToolError.js"
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
} from "./ToolId.js"
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
} from "./ToolResult.js"
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
} from "./ToolService.js"
export {
  checkJsonSchema,
  compileJsonSchema,
  type ValidationResult,
  type Validator,
  validatorFor,
} from "./Validator.js"
