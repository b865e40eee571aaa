/**
 * Running the tool calls of a model response through a tool service, and building exactly what goes
 * back to the model: Chat Completions `tool` messages or Responses API `function_call_output` items.
 * Nothing a model or a tool does wrong escapes as an exception: invalid JSON, unknown tools, invalid
 * arguments, approval requirements and tool failures all become outputs the model can read.
 *
 * @since 0.1.0
 */
import {
  callToolForModel,
  type ExecutionContextInit,
  formatToolError,
  isJsonObject,
  listAllTools,
  mapConcurrent,
  type ToolError,
  type ToolResult,
  type ToolService,
  toolResultText,
  unknownToolText,
} from "@toolplane/foundation"
import { type OpenAIToolSet, toOpenAITools } from "./adapter.js"
import { restoreArguments } from "./restoreArguments.js"

/**
 * A function tool call in a Chat Completions message (structurally the `openai` package's
 * `ChatCompletionMessageToolCall`).
 *
 * @since 0.1.0
 */
export interface ChatToolCallLike {
  readonly id: string
  readonly type: string
  readonly function?: { readonly name: string; readonly arguments: string }
  readonly custom?: { readonly name: string; readonly input: string }
}

/**
 * An assistant message of Chat Completions.
 *
 * @since 0.1.0
 */
export interface ChatMessageLike {
  readonly role: "assistant"
  readonly content?: unknown
  readonly tool_calls?: readonly ChatToolCallLike[] | null | undefined
}

/**
 * A Chat Completions response.
 *
 * @since 0.1.0
 */
export interface ChatCompletionLike {
  readonly choices: readonly { readonly message: ChatMessageLike; readonly finish_reason?: string | null }[]
}

/**
 * An output item of the Responses API; `function_call` items are executed, the rest ignored.
 *
 * @since 0.1.0
 */
export interface ResponseItemLike {
  readonly type: string
  readonly call_id?: unknown
  readonly name?: unknown
  readonly arguments?: unknown
  /** The namespace of a function called through tool search. */
  readonly namespace?: unknown
}

/**
 * A Responses API response.
 *
 * @since 0.1.0
 */
export interface ResponseLike {
  readonly output: readonly ResponseItemLike[]
}

/**
 * A Chat Completions tool message (assignable to `ChatCompletionToolMessageParam`).
 *
 * @since 0.1.0
 */
export interface ChatToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

/**
 * A Responses API `function_call_output` input item (assignable to
 * `ResponseInputItem.FunctionCallOutput`).
 *
 * @since 0.1.0
 */
export interface FunctionCallOutputItem {
  readonly type: "function_call_output"
  readonly call_id: string
  /** Text, or (when the result holds images or files) a list of input content parts. */
  readonly output: string | ResponsesOutputContent[]
}

/**
 * One part of a Responses API `function_call_output` content list (assignable to the `openai`
 * package's `ResponseFunctionCallOutputItem`): text, an image as a data URL, or a file as base64 data.
 *
 * @since 0.1.0
 */
export type ResponsesOutputContent =
  | { readonly type: "input_text"; readonly text: string }
  | { readonly type: "input_image"; readonly image_url: string; readonly detail?: "auto" }
  | { readonly type: "input_file"; readonly file_data: string; readonly filename?: string }

/**
 * What happened to one call.
 *
 * @since 0.1.0
 */
export interface ToolCallOutcome {
  /** The model's call id (`tool_call_id` / `call_id`). */
  readonly callId: string
  /** The name the model called. */
  readonly name: string
  /** The tool id it maps to, when it maps to one. */
  readonly toolId?: string
  /** The arguments passed to the service (after parsing and restoring). */
  readonly arguments?: Readonly<Record<string, unknown>>
  readonly result?: ToolResult
  /** `code` of the failure: a {@link ToolError} code, `INVALID_JSON` or `UNSUPPORTED_CALL`. */
  readonly errorCode?: string
  /** The text sent back to the model. */
  readonly output: string
  /**
   * What a Responses API request sends instead of `output` when the result holds images or files: the
   * text, images and files as input content parts (see {@link toResponsesOutput}).
   */
  readonly content?: ResponsesOutputContent[]
}

/**
 * Options of {@link runToolCalls}.
 *
 * @since 0.1.0
 */
export interface RunToolCallsOptions {
  /**
   * The set returned by `toOpenAITools` for the tools the model saw. Without it the service is listed
   * and the names are mapped again (same result for the same set of tools).
   */
  readonly tools?: Pick<OpenAIToolSet<unknown>, "byName">
  /** Strictness assumed when `tools` is not given. Default `true`. */
  readonly strict?: boolean
  /** Context for every call (caller, session, deadline, signal, metadata); the call id is the model's. */
  readonly context?: ExecutionContextInit
  /** At most this many calls run at once. Default: all. */
  readonly maxConcurrency?: number
  /** Turns a successful result into the text the model reads. Default {@link formatToolResult}. */
  readonly formatResult?: (
    result: ToolResult,
    call: { readonly name: string; readonly toolId: string },
  ) => string
  /** Called once per call, after it finished. */
  readonly onOutcome?: (outcome: ToolCallOutcome) => void
}

/**
 * The default text of a tool result: text blocks joined by newlines, other blocks as short
 * placeholders, the JSON of `structuredContent` when there is no text, and `Error: ` in front of a
 * failed result (foundation's `toolResultText`).
 *
 * @since 0.1.0
 */
export const formatToolResult = (result: ToolResult): string => toolResultText(result)

const fileName = (uri: string): string | undefined => {
  const last = uri.split(/[/\\]/).pop()
  return last !== undefined && last !== "" ? decodeURIComponent(last.split(/[?#]/)[0]!) : undefined
}

/**
 * A successful result as Responses API `function_call_output` content: `undefined` when the result holds
 * no image and no file (send {@link formatToolResult}'s text), otherwise the parts in order: text blocks
 * as `input_text`, images as `input_image` data URLs, embedded binary resources as `input_file` base64
 * data (with the file name of the resource URI); audio and links, which a function output cannot carry,
 * stay text placeholders. A failed result starts with an `Error:` text part.
 *
 * @since 0.1.0
 */
export const toResponsesOutput = (result: ToolResult): ResponsesOutputContent[] | undefined => {
  if (
    !result.content.some(
      (b) => b.type === "image" || (b.type === "resource" && b.resource.blob !== undefined),
    )
  )
    return undefined
  const parts: ResponsesOutputContent[] = []
  if (result.isError) parts.push({ type: "input_text", text: "Error: the tool reported a failure." })
  for (const block of result.content) {
    if (block.type === "image")
      parts.push({ type: "input_image", image_url: `data:${block.mimeType};base64,${block.data}` })
    else if (block.type === "resource" && block.resource.blob !== undefined) {
      const mime = block.resource.mimeType ?? "application/octet-stream"
      const filename = fileName(block.resource.uri)
      parts.push({
        type: "input_file",
        file_data: `data:${mime};base64,${block.resource.blob}`,
        ...(filename !== undefined ? { filename } : {}),
      })
    } else parts.push({ type: "input_text", text: formatToolResult({ content: [block] }) })
  }
  return parts
}

interface PendingCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string | undefined
  readonly unsupported?: string
}

const callsOf = (response: unknown): { api: "chat" | "responses"; calls: PendingCall[] } => {
  if (Array.isArray(response)) return { api: "responses", calls: responseCalls(response) }
  if (isJsonObject(response) && Array.isArray(response.output))
    return { api: "responses", calls: responseCalls(response.output) }
  let message: unknown = response
  if (isJsonObject(response) && Array.isArray(response.choices))
    message = (response.choices[0] as { message?: unknown })?.message
  const toolCalls =
    isJsonObject(message) && Array.isArray(message.tool_calls)
      ? (message.tool_calls as ChatToolCallLike[])
      : []
  return {
    api: "chat",
    calls: toolCalls.map((c) =>
      c.type === "function" && c.function
        ? { callId: c.id, name: c.function.name, arguments: c.function.arguments }
        : {
            callId: c.id,
            name: c.custom?.name ?? String(c.type),
            arguments: undefined,
            unsupported: String(c.type),
          },
    ),
  }
}

const responseCalls = (items: readonly unknown[]): PendingCall[] =>
  items
    .filter((i): i is ResponseItemLike => isJsonObject(i) && i.type === "function_call")
    .map((i) => ({
      callId: typeof i.call_id === "string" ? i.call_id : "",
      // a function inside a namespace (tool search) is routed by "namespace.name"
      name:
        typeof i.name !== "string"
          ? ""
          : typeof i.namespace === "string" && i.namespace !== ""
            ? `${i.namespace}.${i.name}`
            : i.name,
      arguments: typeof i.arguments === "string" ? i.arguments : undefined,
    }))

/**
 * Executes every tool call of a response and returns what happened to each, in the response's order.
 * Calls run concurrently (up to `maxConcurrency`). Never rejects because of a call; it rejects only when
 * `tools` is not given and listing the service fails.
 *
 * @since 0.1.0
 */
export const executeToolCalls = async (
  service: ToolService,
  response: unknown,
  options: RunToolCallsOptions = {},
): Promise<{ api: "chat" | "responses"; outcomes: ToolCallOutcome[] }> => {
  const { api, calls } = callsOf(response)
  if (calls.length === 0) return { api, outcomes: [] }
  const byName =
    options.tools?.byName ??
    toOpenAITools(await listAllTools(service, options.context ? { context: options.context } : {}), {
      strict: options.strict ?? true,
    }).byName
  const format = options.formatResult ?? ((result: ToolResult) => formatToolResult(result))
  const run = async (call: PendingCall): Promise<ToolCallOutcome> => {
    const base = { callId: call.callId, name: call.name }
    if (call.unsupported !== undefined)
      return {
        ...base,
        errorCode: "UNSUPPORTED_CALL",
        output: `Error [UNSUPPORTED_CALL] calling "${call.name}": "${call.unsupported}" tool calls are not supported here; only function tools can be called.`,
      }
    const exported = byName.get(call.name)
    if (exported === undefined)
      return {
        ...base,
        errorCode: "TOOL_NOT_FOUND",
        output: unknownToolText(call.name, [...byName.keys()]),
      }
    const toolId = exported.id
    let parsed: unknown
    const raw = call.arguments === undefined || call.arguments.trim() === "" ? "{}" : call.arguments
    try {
      parsed = JSON.parse(raw)
    } catch (error) {
      return {
        ...base,
        toolId,
        errorCode: "INVALID_JSON",
        output: `Error [INVALID_JSON] calling "${call.name}": the arguments are not valid JSON (${(error as Error).message}). Send the arguments as one JSON object matching the tool's parameters.`,
      }
    }
    if (!isJsonObject(parsed))
      return {
        ...base,
        toolId,
        errorCode: "INVALID_JSON",
        output: `Error [INVALID_JSON] calling "${call.name}": the arguments must be a JSON object, got ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : typeof parsed}.`,
      }
    let args: Record<string, unknown>
    try {
      const restored = restoreArguments(exported.tool.inputSchema, parsed, { wrapped: exported.wrapped })
      args = isJsonObject(restored) ? restored : parsed
    } catch {
      args = parsed
    }
    const outcome = await callToolForModel(service, {
      callId: call.callId,
      name: call.name,
      toolId,
      arguments: args,
      ...(options.context ? { context: options.context } : {}),
    })
    if (!outcome.ok)
      return { ...base, toolId, arguments: args, errorCode: outcome.errorCode, output: outcome.text }
    const { result } = outcome
    const content = options.formatResult === undefined ? toResponsesOutput(result) : undefined
    return {
      ...base,
      toolId,
      arguments: args,
      result,
      output: format(result, { name: call.name, toolId }),
      ...(content !== undefined ? { content } : {}),
    }
  }
  const outcomes = await mapConcurrent(
    calls,
    options.maxConcurrency ?? Number.POSITIVE_INFINITY,
    async (call) => {
      const outcome = await run(call)
      options.onOutcome?.(outcome)
      return outcome
    },
  )
  return { api, outcomes }
}

/**
 * Executes every tool call of a model response through `service` and returns the messages to send
 * back: `tool` messages for a Chat Completions response or assistant message, `function_call_output`
 * items for a Responses API response or its output items. Order follows the response. Failures become
 * outputs (see {@link formatToolError}); nothing about one call can make the others or the loop fail.
 *
 * @example
 * ```ts
 * const completion = await client.chat.completions.create({ model, messages, tools })
 * const message = completion.choices[0].message
 * messages.push(message, ...(await runToolCalls(service, message)))
 * ```
 * @since 0.1.0
 */
export function runToolCalls(
  service: ToolService,
  response: ResponseLike | readonly ResponseItemLike[],
  options?: RunToolCallsOptions,
): Promise<FunctionCallOutputItem[]>
export function runToolCalls(
  service: ToolService,
  response: ChatCompletionLike | ChatMessageLike,
  options?: RunToolCallsOptions,
): Promise<ChatToolMessage[]>
export async function runToolCalls(
  service: ToolService,
  response: ChatCompletionLike | ChatMessageLike | ResponseLike | readonly ResponseItemLike[],
  options: RunToolCallsOptions = {},
): Promise<ChatToolMessage[] | FunctionCallOutputItem[]> {
  const { api, outcomes } = await executeToolCalls(service, response, options)
  return api === "chat"
    ? outcomes.map((o): ChatToolMessage => ({ role: "tool", tool_call_id: o.callId, content: o.output }))
    : outcomes.map(
        (o): FunctionCallOutputItem => ({
          type: "function_call_output",
          call_id: o.callId,
          output: o.content ?? o.output,
        }),
      )
}
