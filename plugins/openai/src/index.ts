/**
 * @toolplane/plugin-openai: export Toolplane tools to OpenAI (Chat Completions and Responses function
 * tools, strict structured-output schemas, reversible names), import OpenAI tools, and run the model's
 * tool calls and whole agent loops through any tool service.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export * from "./adapter.js"
export * from "./agentLoop.js"
export { type OpenAICodeMode, type OpenAICodeModeOptions, openAICodeMode } from "./codeMode.js"
export * from "./import.js"
export * from "./names.js"
export * from "./runToolCalls.js"
export * from "./strict.js"
