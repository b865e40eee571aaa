/**
 * The agent loop: call the model, run its `tool_use` blocks through a tool service, send the
 * `tool_result` blocks back, until the model answers without calling a tool or a step limit is hit.
 * The model client is injected (the `@anthropic-ai/sdk` package's `Anthropic` client, or anything with
 * the same `messages.create`).
 *
 * @since 0.1.0
 */
import { type ExecutionContextInit, listAllTools, type ToolService } from "@toolplane/foundation"
import { type AnthropicToolSet, toAnthropicTools } from "./adapter.js"
import { type ContentBlockLike, executeToolCalls, type ToolCallOutcome } from "./runToolCalls.js"

/**
 * The part of the `@anthropic-ai/sdk` client the loop uses.
 *
 * @since 0.1.0
 */
export interface MessagesClient {
  readonly messages: {
    create(
      body: any,
      options?: any,
    ): PromiseLike<{ readonly content: readonly ContentBlockLike[]; readonly stop_reason?: string | null }>
  }
}

/**
 * Options of {@link runAgentLoop}.
 *
 * @since 0.1.0
 */
export interface AgentLoopOptions {
  readonly client: MessagesClient
  readonly service: ToolService
  readonly model: string
  /** The conversation so far (`user`/`assistant` message params). Not mutated. */
  readonly messages: readonly unknown[]
  /** The system prompt. */
  readonly system?: string | readonly unknown[]
  /** `max_tokens` of every request. Default 4096. */
  readonly maxTokens?: number
  /** Model calls at most. Default 10. */
  readonly maxSteps?: number
  /**
   * The tools to offer: a set from `toAnthropicTools` or `toAnthropicToolSearch`. Default: every tool
   * of the service, exported with `strict`.
   */
  readonly tools?: Pick<AnthropicToolSet, "byName"> & { readonly tools: readonly unknown[] }
  /** Used when `tools` is not given. Default `false`. */
  readonly strict?: boolean
  /** Extra request fields (temperature, tool_choice, metadata, ...). */
  readonly request?: Readonly<Record<string, unknown>>
  /** Context for tool calls; its `signal` also cancels model requests. */
  readonly context?: ExecutionContextInit
  readonly maxConcurrency?: number
  /** Called after each step's tool calls ran. */
  readonly onStep?: (step: AgentStep) => void
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
 * messages to continue from.
 *
 * @since 0.1.0
 */
export interface AgentLoopResult {
  /** `completed`: the model answered; `max_steps`: the limit was hit while it still called tools. */
  readonly stopReason: "completed" | "max_steps"
  readonly text: string | undefined
  readonly steps: readonly AgentStep[]
  /** The messages, including the assistant turns and the `user` turns with tool results. */
  readonly messages: unknown[]
  readonly lastResponse: unknown
}

const textOf = (content: readonly ContentBlockLike[]): string | undefined => {
  const parts = content
    .filter((b) => b.type === "text" && typeof (b as { text?: unknown }).text === "string")
    .map((b) => (b as unknown as { text: string }).text)
  return parts.length > 0 ? parts.join("") : undefined
}

/**
 * Runs the loop. Tool failures never end it (they become `tool_result` blocks with `is_error`); a
 * `pause_turn` (a long server-tool turn, e.g. tool search) is continued; a failing model request
 * rejects with the client's error.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk"
 * const result = await runAgentLoop({
 *   client: new Anthropic(),
 *   service,
 *   model: "claude-sonnet-5-5",
 *   messages: [{ role: "user", content: "What's the weather in Oslo?" }],
 * })
 * console.log(result.text)
 * ```
 * @since 0.1.0
 */
export const runAgentLoop = async (options: AgentLoopOptions): Promise<AgentLoopResult> => {
  const maxSteps = options.maxSteps ?? 10
  const toolset =
    options.tools ??
    toAnthropicTools(
      await listAllTools(options.service, options.context ? { context: options.context } : {}),
      { strict: options.strict ?? false },
    )
  const signal = options.context?.signal
  const requestOptions = signal ? { signal } : undefined
  const messages: unknown[] = [...options.messages]
  const steps: AgentStep[] = []
  let last: unknown
  for (let index = 0; index < maxSteps; index++) {
    const response = await options.client.messages.create(
      {
        model: options.model,
        max_tokens: options.maxTokens ?? 4096,
        messages,
        ...(options.system !== undefined ? { system: options.system } : {}),
        ...(toolset.tools.length > 0 ? { tools: toolset.tools } : {}),
        ...options.request,
      },
      requestOptions,
    )
    last = response
    messages.push({ role: "assistant", content: response.content })
    const outcomes = await executeToolCalls(options.service, response.content, {
      tools: toolset,
      ...(options.context ? { context: options.context } : {}),
      ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    })
    const step = { index, response, outcomes }
    steps.push(step)
    options.onStep?.(step)
    if (outcomes.length > 0) {
      messages.push({ role: "user", content: outcomes.map((o) => o.block) })
      continue
    }
    if (response.stop_reason === "pause_turn") continue
    return {
      stopReason: "completed",
      text: textOf(response.content),
      steps,
      messages,
      lastResponse: response,
    }
  }
  return { stopReason: "max_steps", text: undefined, steps, messages, lastResponse: last }
}
