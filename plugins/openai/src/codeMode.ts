/**
 * Code mode for OpenAI: the whole toolset exported as one function tool, `execute_code` (plus `search`
 * for toolsets too large to declare), whose description declares the tools as TypeScript. Run the
 * model's calls with `runToolCalls(codeMode.service, message, { tools: codeMode.toolSet })`: each
 * program runs in the executor's sandbox and calls the tools through `service`.
 *
 * @since 0.1.0
 */
import { codeMode } from "@toolplane/compose"
import {
  type CodeExecutor,
  type ExecutionContextInit,
  listAllTools,
  type ToolService,
} from "@toolplane/foundation"
import {
  type OpenAIApi,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolSet,
  toOpenAITools,
} from "./adapter.js"

/**
 * Options of {@link openAICodeMode}.
 *
 * @since 0.1.0
 */
export interface OpenAICodeModeOptions {
  /** The code executor (`codeExecutor({ sandbox })` from `@toolplane/exec`). */
  readonly executor: CodeExecutor
  /** Which API's tool shape to produce. Default `"chat"`. */
  readonly api?: OpenAIApi
  /** Namespace of the code-mode tools. Default `"toolplane"` (OpenAI names `toolplane__execute_code`...). */
  readonly namespace?: string
  /** Context of the listing (caller, session). */
  readonly context?: ExecutionContextInit
}

/**
 * The code-mode tools for OpenAI and the service that runs their calls.
 *
 * @since 0.1.0
 */
export interface OpenAICodeMode {
  /** The function tools to send to the model: `execute_code` (and `search` for large toolsets). */
  readonly tools: (OpenAIChatTool | OpenAIResponsesTool)[]
  /** Pass as `runToolCalls(..., { tools: toolSet })` to route and restore the calls. */
  readonly toolSet: OpenAIToolSet
  /** Pass as `runToolCalls`' service: runs programs against the original service. */
  readonly service: ToolService
}

/**
 * Exports `service` in code mode: one function tool instead of the tool list.
 *
 * @example
 * ```ts
 * const code = await openAICodeMode(runner, { executor: codeExecutor({ sandbox: quickJsSandbox() }) })
 * const completion = await client.chat.completions.create({ model, messages, tools: code.tools })
 * const message = completion.choices[0].message
 * messages.push(message, ...(await runToolCalls(code.service, message, { tools: code.toolSet })))
 * ```
 *
 * @since 0.1.0
 */
export const openAICodeMode = async (
  service: ToolService,
  options: OpenAICodeModeOptions,
): Promise<OpenAICodeMode> => {
  const wrapped = codeMode({
    executor: options.executor,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  })(service)
  const tools = await listAllTools(wrapped, options.context ? { context: options.context } : {})
  const toolSet = toOpenAITools(tools, { api: options.api ?? "chat" }) as OpenAIToolSet
  return { tools: toolSet.tools as (OpenAIChatTool | OpenAIResponsesTool)[], toolSet, service: wrapped }
}
