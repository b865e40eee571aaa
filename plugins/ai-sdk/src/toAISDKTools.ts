/**
 * Export: any tool service as AI SDK tools (`dynamicTool` + `jsonSchema`), executed through the service
 * with the SDK's abort signal and call id, with approval through the SDK's approval flow.
 *
 * @since 0.1.0
 */
import {
  type ExecutionContextInit,
  type FeatureLossWarning,
  formatToolError,
  isToolError,
  listAllTools,
  type Tool,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { functionTools, type ToolNameMap } from "@toolplane/plugin-openai"
import { dynamicTool, jsonSchema, type ToolSet } from "ai"
import type { AISDKApproval } from "./approval.js"
import { type ModelOutput, toModelOutput } from "./internal/output.js"

/**
 * The approval status the SDK's `toolApproval` option takes, per tool (the `ai` package's
 * `ToolApprovalStatus`, the variants this plugin produces).
 *
 * @since 0.1.0
 */
export type AISDKApprovalStatus =
  | { readonly type: "user-approval"; readonly reason?: string }
  | { readonly type: "not-applicable" }

/**
 * Options of {@link toAISDKTools}.
 *
 * @since 0.1.0
 */
export interface AISDKToolsOptions {
  /** The tools to export. Default: every tool the service lists. */
  readonly tools?: readonly Tool[]
  /** Context for every call (caller, session, deadline, metadata); the SDK's signal and call id are added. */
  readonly context?: ExecutionContextInit
  /**
   * The approval link (see `aiSdkApproval`): tools it says need approval ask through the SDK's approval
   * flow, and the calls the SDK lets through carry the proof its runner approver accepts. Without it no
   * tool asks and the service's own gate decides (a call that needs approval then reads as an error).
   */
  readonly approval?: AISDKApproval
}

/**
 * The result of {@link toAISDKTools}.
 *
 * @since 0.1.0
 */
export interface AISDKToolSet {
  /** Pass as `tools` to `generateText` / `streamText` / an `Agent`. */
  readonly tools: ToolSet
  /**
   * Pass as `toolApproval` to `generateText` / `streamText` (the tools also carry `needsApproval`, so
   * leaving it out asks the same tools, without the reason).
   */
  readonly toolApproval: Record<string, AISDKApprovalStatus>
  /** Tool id ↔ tool name (names follow `^[a-zA-Z0-9_-]{1,64}$`, the rule of OpenAI and Anthropic; Gemini also wants a letter or `_` first). */
  readonly names: ToolNameMap
  /** Lossy renames and tools that could not be exported. */
  readonly warnings: FeatureLossWarning[]
}

const warn = (toolId: string, feature: string, path: string, message: string): FeatureLossWarning => ({
  feature,
  path,
  from: "canonical",
  to: "ai-sdk",
  toolId,
  message,
})

const withSignal = (init: ExecutionContextInit, signal: AbortSignal | undefined): AbortSignal | undefined =>
  signal === undefined
    ? init.signal
    : init.signal === undefined
      ? signal
      : AbortSignal.any([init.signal, signal])

/**
 * Exports a tool service's tools as AI SDK tools. Each tool is a `dynamicTool` whose `inputSchema` is the
 * tool's JSON Schema; `execute` calls the service with the SDK's abort signal and tool call id; a
 * result becomes readable model output (text, the JSON of structured content, images and files as
 * content parts, a failed result as error text); a typed failure (invalid arguments, approval
 * required, an execution failure, ...) is thrown as an `Error` whose message tells the model what went
 * wrong and what to do, which the SDK sends back as a tool error. Never throws for one tool: a tool that
 * cannot be exported is left out with a warning.
 *
 * @example
 * ```ts
 * import { generateText, type LanguageModel, stepCountIs } from "ai"
 *
 * declare const model: LanguageModel
 * const { tools } = await toAISDKTools(service)
 * const { text } = await generateText({ model, tools, prompt: "Weather in Oslo?", stopWhen: stepCountIs(5) })
 * ```
 * @since 0.1.0
 */
export const toAISDKTools = async (
  service: ToolService,
  options: AISDKToolsOptions = {},
): Promise<AISDKToolSet> => {
  const init = options.context ?? {}
  const listed =
    options.tools ?? (await listAllTools(service, options.context ? { context: options.context } : {}))
  const { entries, names, warnings } = functionTools(listed, "ai-sdk")
  const tools: ToolSet = {}
  const toolApproval: Record<string, AISDKApprovalStatus> = {}
  const approval = options.approval
  for (const { tool, name, description: text, parameters: schema } of entries) {
    let asks: boolean
    try {
      asks = approval !== undefined && (await approval.needsApproval(tool))
    } catch (error) {
      warnings.push(warn(tool.id, "tool", "", `left out: ${(error as Error)?.message ?? String(error)}`))
      continue
    }
    toolApproval[name] = asks
      ? { type: "user-approval", reason: `${tool.id} needs approval before it runs` }
      : { type: "not-applicable" }
    tools[name] = dynamicTool({
      ...(text !== undefined ? { description: text } : {}),
      inputSchema: jsonSchema(schema as Parameters<typeof jsonSchema>[0]),
      ...(asks ? { needsApproval: true } : {}),
      execute: async (input, { abortSignal, toolCallId }): Promise<ToolResult> => {
        const signal = withSignal(init, abortSignal)
        const metadata = approval
          ? { ...(init.metadata ?? {}), ...approval.proof(asks ? "user" : "policy") }
          : init.metadata
        try {
          return await service.callTool({
            id: toolCallId,
            name: tool.id,
            arguments: (input ?? {}) as Record<string, unknown>,
            context: {
              ...init,
              callId: toolCallId,
              ...(signal !== undefined ? { signal } : {}),
              ...(metadata !== undefined ? { metadata } : {}),
            },
          })
        } catch (error) {
          // the SDK shows a thrown error as "Error: <message>"; the message says what to do next
          if (isToolError(error))
            throw new Error(formatToolError(error, name).replace(/^Error /, ""), { cause: error })
          throw error
        }
      },
      toModelOutput: ({ output }): ModelOutput => toModelOutput(output as ToolResult),
    })
  }
  return { tools, toolApproval, names, warnings }
}
