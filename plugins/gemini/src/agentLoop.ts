/**
 * The agent loop: call the model, run its `functionCall` parts through a tool service, send the
 * `functionResponse` parts back, until the model answers without calling a function or a step limit is
 * hit. The model client is injected (the `@google/genai` package's `GoogleGenAI`, or anything with the
 * same `models.generateContent`).
 *
 * @since 0.1.0
 */
import {
  type ExecutionContextInit,
  isJsonObject,
  listAllTools,
  type ToolService,
} from "@toolplane/foundation"
import { type GeminiToolSet, type GeminiToolsOptions, toGeminiTools } from "./adapter.js"
import { type ContentLike, executeToolCalls, type ToolCallOutcome } from "./runToolCalls.js"

/**
 * The part of the `@google/genai` client the loop uses.
 *
 * @since 0.1.0
 */
export interface GenerateContentClient {
  readonly models: {
    generateContent(
      params: any,
    ): PromiseLike<{ readonly candidates?: readonly { readonly content?: ContentLike }[] }>
  }
}

/**
 * Options of {@link runAgentLoop}.
 *
 * @since 0.1.0
 */
export interface AgentLoopOptions {
  readonly client: GenerateContentClient
  readonly service: ToolService
  readonly model: string
  /** The conversation so far: a string (one user turn) or `Content`s. Not mutated. */
  readonly contents: string | readonly unknown[]
  /** The system instruction. */
  readonly systemInstruction?: string
  /** Model calls at most. Default 10. */
  readonly maxSteps?: number
  /** The tools to offer; default: every tool of the service, exported with `schema`. */
  readonly tools?: Pick<GeminiToolSet, "byName" | "tool">
  /** Used when `tools` is not given. */
  readonly schema?: GeminiToolsOptions["schema"]
  /** Extra `config` fields (temperature, toolConfig, ...). */
  readonly config?: Readonly<Record<string, unknown>>
  /** Send result media as inline-data parts. Default `true`. */
  readonly media?: boolean
  /** Context for tool calls; its `signal` also cancels model requests (`config.abortSignal`). */
  readonly context?: ExecutionContextInit
  readonly maxConcurrency?: number
  /** Called after each step's calls ran. */
  readonly onStep?: (step: AgentStep) => void
}

/**
 * One model call and the function calls it asked for.
 *
 * @since 0.1.0
 */
export interface AgentStep {
  readonly index: number
  readonly response: unknown
  readonly outcomes: readonly ToolCallOutcome[]
}

/**
 * The end of a loop: why it stopped, the final text, every step, and the contents to continue from.
 *
 * @since 0.1.0
 */
export interface AgentLoopResult {
  readonly stopReason: "completed" | "max_steps"
  readonly text: string | undefined
  readonly steps: readonly AgentStep[]
  readonly contents: unknown[]
  readonly lastResponse: unknown
}

const textOf = (content: ContentLike | undefined): string | undefined => {
  const parts = (content?.parts ?? [])
    .filter((p) => typeof p.text === "string" && p.thought !== true)
    .map((p) => p.text as string)
  return parts.length > 0 ? parts.join("") : undefined
}

/**
 * Runs the loop. Tool failures never end it (they become `{ error }` function responses); a failing
 * model request rejects with the client's error.
 *
 * @example
 * ```ts
 * import { GoogleGenAI } from "@google/genai"
 * const result = await runAgentLoop({ client: new GoogleGenAI({}), service, model: "gemini-2.5-flash", contents: "Weather in Oslo?" })
 * console.log(result.text)
 * ```
 * @since 0.1.0
 */
export const runAgentLoop = async (options: AgentLoopOptions): Promise<AgentLoopResult> => {
  const maxSteps = options.maxSteps ?? 10
  const toolset =
    options.tools ??
    toGeminiTools(
      await listAllTools(options.service, options.context ? { context: options.context } : {}),
      options.schema !== undefined ? { schema: options.schema } : {},
    )
  const contents: unknown[] =
    typeof options.contents === "string"
      ? [{ role: "user", parts: [{ text: options.contents }] }]
      : [...options.contents]
  const steps: AgentStep[] = []
  const signal = options.context?.signal
  const hasTools = toolset.tool.functionDeclarations.length > 0
  let last: unknown
  for (let index = 0; index < maxSteps; index++) {
    const response = await options.client.models.generateContent({
      model: options.model,
      contents,
      config: {
        ...(hasTools ? { tools: [toolset.tool] } : {}),
        ...(options.systemInstruction !== undefined ? { systemInstruction: options.systemInstruction } : {}),
        ...(signal ? { abortSignal: signal } : {}),
        ...options.config,
      },
    })
    last = response
    const content = response.candidates?.[0]?.content
    if (isJsonObject(content)) contents.push({ ...content, role: content.role ?? "model" })
    const outcomes = await executeToolCalls(options.service, response, {
      tools: toolset,
      ...(options.context ? { context: options.context } : {}),
      ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
      ...(options.media !== undefined ? { media: options.media } : {}),
    })
    const step = { index, response, outcomes }
    steps.push(step)
    options.onStep?.(step)
    if (outcomes.length === 0)
      return { stopReason: "completed", text: textOf(content), steps, contents, lastResponse: response }
    contents.push({ role: "user", parts: outcomes.map((o) => o.part) })
  }
  return { stopReason: "max_steps", text: undefined, steps, contents, lastResponse: last }
}
