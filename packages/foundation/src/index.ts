/**
 * @toolplane/foundation: the core model and contracts of Toolplane. No I/O.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export * from "./Adapter.js"
export * from "./Backend.js"
export * from "./BackendRegistry.js"
export * from "./CodeExecutor.js"
export * from "./Content.js"
export * from "./Cursor.js"
export * from "./defineTool.js"
export * from "./Enricher.js"
export * from "./ExecutionContext.js"
export * from "./JsonSchema.js"
export * from "./SandboxError.js"
export * from "./Tool.js"
export * from "./ToolCall.js"
export * from "./ToolError.js"
export * from "./ToolId.js"
export * from "./ToolResult.js"
export * from "./ToolService.js"
export * from "./Validator.js"
