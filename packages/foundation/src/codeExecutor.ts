/**
 * The code-executor contract: run a model-written program that calls a toolset. It lives here so that
 * exposures (compose's code-mode middleware, protocol plugins) receive an executor without importing
 * the package that implements it (`codeExecutor` in `@toolplane/exec`).
 *
 * @since 0.1.0
 */

import { text } from "./content.js"
import type { ExecutionContext, ExecutionContextInit } from "./executionContext.js"
import type { Tool } from "./tool.js"
import type { ToolResult } from "./toolResult.js"
import type { ToolService } from "./toolService.js"

/**
 * A finished program: its returned value (JSON data), console output and how many tool calls it made.
 *
 * @since 0.1.0
 */
export interface CodeExecution {
  readonly result: unknown
  readonly logs: readonly string[]
  readonly toolCalls: number
  readonly durationMs: number
}

/**
 * The generated TypeScript declaration of a toolset, for a model's prompt. `complete` is `false` when
 * the toolset did not fit the size cap: then `text` names the namespaces and `tools.$search(query)`.
 *
 * @since 0.1.0
 */
export interface ToolsetDeclaration {
  readonly text: string
  readonly complete: boolean
  /** Tools declared in `text` (all of them when `complete`). */
  readonly listed: number
  readonly total: number
}

/**
 * Runs programs against a toolset. `execute` rejects with a typed error (`SandboxTimeout`,
 * `SandboxError`, ...) whose `logs` hold the console output written before the failure.
 *
 * @since 0.1.0
 */
export interface CodeExecutor {
  execute(
    code: string,
    options: { readonly tools: ToolService; readonly context?: ExecutionContext | ExecutionContextInit },
  ): Promise<CodeExecution>
  /** The declaration of `tools` as the program sees them. */
  declare(tools: readonly Tool[]): ToolsetDeclaration
  /**
   * The `limit` tools matching `query` best (the `search` fallback for large toolsets): id, how a program
   * calls it (`tools.ns.name`) and its declaration.
   */
  search(
    tools: readonly Tool[],
    query: string,
    limit?: number,
  ): readonly { readonly id: string; readonly call: string; readonly declaration: string }[]
}

/**
 * A finished program as a tool result: `structuredContent` `{ result, logs }` and the same as JSON text.
 *
 * @since 0.1.0
 */
export const codeExecutionResult = (execution: CodeExecution): ToolResult => {
  const structured = { result: execution.result ?? null, logs: [...execution.logs] }
  return { content: [text(JSON.stringify(structured))], structuredContent: structured }
}
