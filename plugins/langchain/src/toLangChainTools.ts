/**
 * Export: any tool service as LangChain structured tools (`DynamicStructuredTool` with the tool's JSON
 * Schema), executed through the service with the run's abort signal; failures come back readable.
 *
 * @since 0.1.0
 */

import { ToolMessage } from "@langchain/core/messages"
import { DynamicStructuredTool } from "@langchain/core/tools"
import {
  type ExecutionContextInit,
  type FeatureLossWarning,
  isJsonObject,
  isToolError,
  listAllTools,
  type Tool,
  type ToolService,
} from "@toolplane/foundation"
import { formatToolError, functionTools, type ToolNameMap } from "@toolplane/plugin-openai"
import { toLangChainContent } from "./internal/content.js"

/**
 * Options of {@link toLangChainTools}.
 *
 * @since 0.1.0
 */
export interface LangChainToolsOptions {
  /** The tools to export. Default: every tool the service lists. */
  readonly tools?: readonly Tool[]
  /** Context for every call (caller, session, deadline, metadata); the run's signal and call id are added. */
  readonly context?: ExecutionContextInit
}

/**
 * The result of {@link toLangChainTools}.
 *
 * @since 0.1.0
 */
export interface LangChainToolSet {
  /** Pass to `model.bindTools(tools)`, `createAgent({ tools })`, a `ToolNode`, ... */
  readonly tools: DynamicStructuredTool[]
  /** Tool id ↔ tool name (names follow `^[a-zA-Z0-9_-]{1,64}$`, the rule of OpenAI and Anthropic; Gemini also wants a letter or `_` first). */
  readonly names: ToolNameMap
  /** The canonical tools by LangChain name. */
  readonly byName: ReadonlyMap<string, Tool>
  /** Lossy renames and tools that could not be exported. */
  readonly warnings: FeatureLossWarning[]
}

const signalOf = (init: ExecutionContextInit, signal: AbortSignal | undefined) =>
  signal === undefined
    ? init.signal
    : init.signal === undefined
      ? signal
      : AbortSignal.any([init.signal, signal])

/**
 * Exports a tool service's tools as LangChain `DynamicStructuredTool`s. A call goes to the service with
 * the run's abort signal and the tool call id; a result becomes the tool message content (text, the
 * JSON of structured content, images as `image_url` blocks). A typed failure (invalid arguments,
 * approval required, an execution failure, ...) becomes, for a tool call, a `ToolMessage` with
 * `status: "error"` whose text says what went wrong and what to do; called with bare arguments it is
 * thrown as an `Error` with that text. LangChain validates arguments against the JSON Schema before
 * the call (`verboseParsingErrors` on); to get every failure as a message without LangChain's own
 * checks, run the model's calls with {@link runLangChainToolCalls}. Never throws for one tool: a tool
 * that cannot be exported is left out with a warning.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai"
 *
 * const { tools } = await toLangChainTools(service)
 * const ai = await new ChatOpenAI({ model: "gpt-4.1" }).bindTools(tools).invoke("Weather in Oslo?")
 * ```
 * @since 0.1.0
 */
export const toLangChainTools = async (
  service: ToolService,
  options: LangChainToolsOptions = {},
): Promise<LangChainToolSet> => {
  const init = options.context ?? {}
  const listed =
    options.tools ?? (await listAllTools(service, options.context ? { context: options.context } : {}))
  const { entries, names, warnings } = functionTools(listed, "langchain")
  const tools: DynamicStructuredTool[] = []
  const byName = new Map<string, Tool>()
  for (const { tool, name, description: text, parameters: schema } of entries) {
    // LangChain requires a description
    const description = text ?? tool.id
    byName.set(name, tool)
    tools.push(
      new DynamicStructuredTool({
        name,
        description,
        schema: schema as never,
        verboseParsingErrors: true,
        metadata: { toolplaneId: tool.id },
        func: async (input: unknown, _runManager, config) => {
          const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id
          const signal = signalOf(init, config?.signal)
          try {
            const result = await service.callTool({
              ...(toolCallId !== undefined ? { id: toolCallId } : {}),
              name: tool.id,
              arguments: (isJsonObject(input) ? input : {}) as Record<string, unknown>,
              context: {
                ...init,
                ...(toolCallId !== undefined ? { callId: toolCallId } : {}),
                ...(signal !== undefined ? { signal } : {}),
              },
            })
            const content = toLangChainContent(result)
            if (result.isError && toolCallId !== undefined)
              return new ToolMessage({ content, tool_call_id: toolCallId, name, status: "error" })
            return content
          } catch (error) {
            if (!isToolError(error)) throw error
            const text = formatToolError(error, name)
            if (toolCallId !== undefined)
              return new ToolMessage({ content: text, tool_call_id: toolCallId, name, status: "error" })
            throw new Error(text, { cause: error })
          }
        },
      }),
    )
  }
  return { tools, names, byName, warnings }
}
