/**
 * Running the tool calls of a LangChain chat model's `AIMessage` through a tool service, and building
 * exactly the `ToolMessage`s that go back to the model. Nothing a model or a tool does wrong escapes as
 * an exception: invalid JSON (`invalid_tool_calls`), unknown tools, invalid arguments, approval
 * requirements and tool failures all become messages with `status: "error"`.
 *
 * @since 0.1.0
 */
import { ToolMessage } from "@langchain/core/messages"
import { type ExecutionContextInit, listAllTools, type Tool, type ToolService } from "@toolplane/foundation"
import { executeToolCalls, toOpenAITools } from "@toolplane/plugin-openai"
import { toLangChainContent } from "./internal/content.js"
import type { LangChainToolSet } from "./toLangChainTools.js"

/**
 * The parts of a LangChain `AIMessage` this helper reads.
 *
 * @since 0.1.0
 */
export interface AIMessageLike {
  readonly tool_calls?: readonly { readonly id?: string; readonly name: string; readonly args: unknown }[]
  readonly invalid_tool_calls?: readonly {
    readonly id?: string
    readonly name?: string
    readonly args?: string
    readonly error?: string
  }[]
}

/**
 * Options of {@link runLangChainToolCalls}.
 *
 * @since 0.1.0
 */
export interface RunLangChainToolCallsOptions {
  /** The set `toLangChainTools` returned for the tools the model saw. Default: list the service again. */
  readonly tools?: Pick<LangChainToolSet, "byName">
  /** Context for every call; the call id is the model's. */
  readonly context?: ExecutionContextInit
  /** At most this many calls run at once. Default: all. */
  readonly maxConcurrency?: number
}

/**
 * Executes every tool call of `message` (valid ones concurrently, up to `maxConcurrency`) and returns
 * one `ToolMessage` per call, valid calls first in the message's order, then the invalid ones.
 *
 * @example
 * ```ts
 * import { type BaseMessage, HumanMessage } from "@langchain/core/messages"
 * import { ChatOpenAI } from "@langchain/openai"
 *
 * const set = await toLangChainTools(service)
 * const history: BaseMessage[] = [new HumanMessage("Weather in Oslo?")]
 * const ai = await new ChatOpenAI({ model: "gpt-4.1" }).bindTools(set.tools).invoke(history)
 * history.push(ai, ...(await runLangChainToolCalls(service, ai, { tools: set })))
 * ```
 * @since 0.1.0
 */
export const runLangChainToolCalls = async (
  service: ToolService,
  message: AIMessageLike,
  options: RunLangChainToolCallsOptions = {},
): Promise<ToolMessage[]> => {
  const calls = [
    ...(message.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${i}`,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
    })),
    ...(message.invalid_tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `invalid_${i}`,
      type: "function",
      function: { name: c.name ?? "", arguments: c.args ?? "" },
    })),
  ]
  if (calls.length === 0) return []
  const tools: readonly Tool[] = options.tools
    ? [...options.tools.byName.values()]
    : await listAllTools(service, options.context ? { context: options.context } : {})
  const { outcomes } = await executeToolCalls(
    service,
    { role: "assistant", tool_calls: calls },
    {
      tools: toOpenAITools(tools, { strict: false }),
      ...(options.context !== undefined ? { context: options.context } : {}),
      ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    },
  )
  return outcomes.map(
    (o) =>
      new ToolMessage({
        content: o.result !== undefined && !o.result.isError ? toLangChainContent(o.result) : o.output,
        tool_call_id: o.callId,
        name: o.name,
        status: o.errorCode !== undefined || o.result?.isError === true ? "error" : "success",
      }),
  )
}
