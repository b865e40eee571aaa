/**
 * The agent loop: call the model, run its tool calls through a tool service, send the outputs back,
 * until the model answers without calling a tool or a step limit is hit. The model client is injected
 * (the `openai` package's `OpenAI` client, or anything with the same `create` methods).
 *
 * @since 0.1.0
 */
import { type ExecutionContextInit, listAllTools, type ToolService } from "@toolplane/foundation"
import {
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolSet,
  toOpenAITools,
} from "./adapter.js"
import {
  type ChatCompletionLike,
  type ChatMessageLike,
  executeToolCalls,
  type ResponseItemLike,
  type RunToolCallsOptions,
  type ToolCallOutcome,
} from "./runToolCalls.js"

/**
 * The part of the `openai` client the Chat Completions loop uses.
 *
 * @since 0.1.0
 */
export interface ChatCompletionsClient {
  readonly chat: {
    readonly completions: {
      create(body: any, options?: any): PromiseLike<ChatCompletionLike>
    }
  }
}

/**
 * The part of the `openai` client the Responses loop uses.
 *
 * @since 0.1.0
 */
export interface ResponsesClient {
  readonly responses: {
    create(
      body: any,
      options?: any,
    ): PromiseLike<{
      readonly id?: string
      readonly output: readonly ResponseItemLike[]
      readonly output_text?: string
    }>
  }
}

interface LoopCommon {
  readonly service: ToolService
  readonly model: string
  /** Model calls at most. Default 10. */
  readonly maxSteps?: number
  /** The tools to offer; default: every tool of the service, exported with `strict`. */
  readonly tools?: OpenAIToolSet<any>
  /** Used when `tools` is not given. Default `true`. */
  readonly strict?: boolean
  /** Extra request fields (temperature, tool_choice, parallel_tool_calls, ...). */
  readonly request?: Readonly<Record<string, unknown>>
  /** Context for tool calls; its `signal` also cancels model requests. */
  readonly context?: ExecutionContextInit
  readonly maxConcurrency?: number
  /** Called after each step's tool calls ran. */
  readonly onStep?: (step: AgentStep) => void
}

/**
 * Options of {@link runAgentLoop} for the Chat Completions API.
 *
 * @since 0.1.0
 */
export interface ChatAgentLoopOptions extends LoopCommon {
  readonly api?: "chat"
  readonly client: ChatCompletionsClient
  /** The conversation so far (system and user messages). Not mutated. */
  readonly messages: readonly unknown[]
}

/**
 * Options of {@link runAgentLoop} for the Responses API (stateless: the whole input is sent each step).
 *
 * @since 0.1.0
 */
export interface ResponsesAgentLoopOptions extends LoopCommon {
  readonly api: "responses"
  readonly client: ResponsesClient
  /** The input so far: a string or input items. Not mutated. */
  readonly input: string | readonly unknown[]
}

/**
 * One model call and the tool calls it asked for.
 *
 * @since 0.1.0
 */
export interface AgentStep {
  readonly index: number
  readonly response: unknown
  readonly outcomes: readonly ToolCallOutcome[]
}

/**
 * The end of a loop: why it stopped, the final text when the model answered, every step, and the
 * transcript to continue from (`messages` for chat, `input` for responses).
 *
 * @since 0.1.0
 */
export interface AgentLoopResult {
  readonly stopReason: "completed" | "max_steps"
  readonly text: string | undefined
  readonly steps: readonly AgentStep[]
  /** Chat: the messages, including assistant and tool messages. Responses: the input items. */
  readonly transcript: unknown[]
  readonly lastResponse: unknown
}

const toolSetFor = async (options: LoopCommon, api: "chat" | "responses"): Promise<OpenAIToolSet<any>> => {
  if (options.tools) {
    if (options.tools.api !== api)
      throw new TypeError(`the tools were exported for the ${options.tools.api} API, not ${api}`)
    return options.tools
  }
  const all = await listAllTools(options.service, options.context ? { context: options.context } : {})
  return toOpenAITools(all, { api, strict: options.strict ?? true })
}

const textOfMessage = (message: ChatMessageLike): string | undefined =>
  typeof message.content === "string" ? message.content : undefined

const textOfResponse = (response: {
  output: readonly ResponseItemLike[]
  output_text?: string
}): string | undefined => {
  if (typeof response.output_text === "string" && response.output_text !== "") return response.output_text
  const parts: string[] = []
  for (const item of response.output as readonly {
    type: string
    content?: { type: string; text?: string }[]
  }[])
    if (item.type === "message")
      for (const c of item.content ?? [])
        if (c.type === "output_text" && typeof c.text === "string") parts.push(c.text)
  return parts.length > 0 ? parts.join("") : undefined
}

/**
 * Runs the loop. Tool failures never end it (they become tool outputs); a failing model request
 * rejects with the client's error.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * const result = await runAgentLoop({
 *   client: new OpenAI(),
 *   service,
 *   model: "gpt-4.1",
 *   messages: [{ role: "user", content: "What's the weather in Oslo?" }],
 * })
 * console.log(result.text)
 * ```
 * @since 0.1.0
 */
export async function runAgentLoop(
  options: ChatAgentLoopOptions | ResponsesAgentLoopOptions,
): Promise<AgentLoopResult> {
  const maxSteps = options.maxSteps ?? 10
  const api = options.api ?? "chat"
  const toolset = await toolSetFor(options, api)
  const signal = options.context?.signal
  const requestOptions = signal ? { signal } : undefined
  const runOptions: RunToolCallsOptions = {
    tools: toolset,
    ...(options.context ? { context: options.context } : {}),
    ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
  }
  const steps: AgentStep[] = []
  const tools = toolset.tools as (OpenAIChatTool | OpenAIResponsesTool)[]
  if (options.api === "responses") {
    const transcript: unknown[] =
      typeof options.input === "string" ? [{ role: "user", content: options.input }] : [...options.input]
    let last: unknown
    for (let index = 0; index < maxSteps; index++) {
      const response = await options.client.responses.create(
        {
          model: options.model,
          input: transcript,
          ...(tools.length > 0 ? { tools } : {}),
          ...options.request,
        },
        requestOptions,
      )
      last = response
      transcript.push(...response.output)
      const { outcomes } = await executeToolCalls(options.service, response, runOptions)
      const step = { index, response, outcomes }
      steps.push(step)
      options.onStep?.(step)
      if (outcomes.length === 0)
        return {
          stopReason: "completed",
          text: textOfResponse(response),
          steps,
          transcript,
          lastResponse: response,
        }
      for (const o of outcomes)
        transcript.push({ type: "function_call_output", call_id: o.callId, output: o.content ?? o.output })
    }
    return { stopReason: "max_steps", text: undefined, steps, transcript, lastResponse: last }
  }
  const chat = options as ChatAgentLoopOptions
  const transcript: unknown[] = [...chat.messages]
  let last: unknown
  for (let index = 0; index < maxSteps; index++) {
    const completion = await chat.client.chat.completions.create(
      { model: chat.model, messages: transcript, ...(tools.length > 0 ? { tools } : {}), ...chat.request },
      requestOptions,
    )
    last = completion
    const message = completion.choices[0]?.message
    if (message === undefined)
      return { stopReason: "completed", text: undefined, steps, transcript, lastResponse: completion }
    transcript.push(stripNulls(message))
    const { outcomes } = await executeToolCalls(chat.service, message, runOptions)
    const step = { index, response: completion, outcomes }
    steps.push(step)
    chat.onStep?.(step)
    if (outcomes.length === 0)
      return {
        stopReason: "completed",
        text: textOfMessage(message),
        steps,
        transcript,
        lastResponse: completion,
      }
    for (const o of outcomes) transcript.push({ role: "tool", tool_call_id: o.callId, content: o.output })
  }
  return { stopReason: "max_steps", text: undefined, steps, transcript, lastResponse: last }
}

/** An assistant message as a request parameter: fields the API sends as `null` are left out. */
const stripNulls = (message: ChatMessageLike): Record<string, unknown> => {
  const out = Object.fromEntries(Object.entries(message).filter(([, v]) => v !== null && v !== undefined))
  return Object.hasOwn(out, "content") ? out : { ...out, content: null }
}
