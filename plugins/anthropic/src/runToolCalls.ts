/**
 * Running the `tool_use` blocks of a Messages API response through a tool service, and building exactly
 * what goes back to the model: one `tool_result` block per call (text as text blocks, images as image
 * blocks, PDFs as document blocks, `is_error` on failures). Nothing a model or a tool does wrong escapes
 * as an exception: unknown tools, input that is not an object, invalid arguments, approval requirements
 * and tool failures all become results the model can read.
 *
 * @since 0.1.0
 */
import {
  type ContentBlock,
  callToolForModel,
  contentBlockText,
  type ExecutionContextInit,
  isJsonObject,
  listAllTools,
  mapConcurrent,
  type ToolResult,
  type ToolService,
  unknownToolText,
} from "@toolplane/foundation"
import { type AnthropicToolSet, toAnthropicTools } from "./adapter.js"

/**
 * A content block of a response; `tool_use` blocks are executed, the rest ignored (server tool blocks
 * such as `server_tool_use` run on Anthropic's side).
 *
 * @since 0.1.0
 */
export interface ContentBlockLike {
  readonly type: string
  readonly id?: unknown
  readonly name?: unknown
  readonly input?: unknown
}

/**
 * A Messages API response or assistant message (structurally `Anthropic.Messages.Message`).
 *
 * @since 0.1.0
 */
export interface MessageLike {
  readonly content: readonly ContentBlockLike[] | string
  readonly stop_reason?: string | null
}

/**
 * A text block of a tool result (assignable to `TextBlockParam`).
 *
 * @since 0.1.0
 */
export interface ToolResultText {
  type: "text"
  text: string
}

/**
 * An image block of a tool result (assignable to `ImageBlockParam`).
 *
 * @since 0.1.0
 */
export interface ToolResultImage {
  type: "image"
  source: {
    type: "base64"
    media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"
    data: string
  }
}

/**
 * A PDF document block of a tool result (assignable to `DocumentBlockParam`).
 *
 * @since 0.1.0
 */
export interface ToolResultDocument {
  type: "document"
  source: { type: "base64"; media_type: "application/pdf"; data: string }
  title?: string
}

/**
 * A `tool_result` block (assignable to `Anthropic.Messages.ToolResultBlockParam`), sent back in a
 * `user` message.
 *
 * @since 0.1.0
 */
export interface ToolResultBlock {
  type: "tool_result"
  tool_use_id: string
  content: (ToolResultText | ToolResultImage | ToolResultDocument)[]
  is_error?: boolean
}

/**
 * What happened to one call.
 *
 * @since 0.1.0
 */
export interface ToolCallOutcome {
  /** The `tool_use` block's id. */
  readonly callId: string
  /** The name the model called. */
  readonly name: string
  /** The tool id it maps to, when it maps to one. */
  readonly toolId?: string
  /** The arguments passed to the service. */
  readonly arguments?: Readonly<Record<string, unknown>>
  readonly result?: ToolResult
  /** `code` of the failure: a `ToolError` code or `INVALID_INPUT`. */
  readonly errorCode?: string
  /** The block sent back to the model. */
  readonly block: ToolResultBlock
}

/**
 * Options of {@link runToolCalls}.
 *
 * @since 0.1.0
 */
export interface RunToolCallsOptions {
  /**
   * The set returned by `toAnthropicTools` for the tools the model saw. Without it the service is
   * listed and the names are mapped again (same result for the same set of tools).
   */
  readonly tools?: Pick<AnthropicToolSet, "byName">
  /** Context for every call (caller, session, deadline, signal, metadata); the call id is the model's. */
  readonly context?: ExecutionContextInit
  /** At most this many calls run at once. Default: all. */
  readonly maxConcurrency?: number
  /** Turns a successful result into the blocks the model reads. Default {@link toolResultContent}. */
  readonly formatResult?: (
    result: ToolResult,
    call: { readonly name: string; readonly toolId: string },
  ) => ToolResultBlock["content"]
  /** Called once per call, after it finished. */
  readonly onOutcome?: (outcome: ToolCallOutcome) => void
}

const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

const blockOf = (block: ContentBlock): ToolResultBlock["content"][number] => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "image":
      return IMAGE_TYPES.has(block.mimeType)
        ? {
            type: "image",
            source: {
              type: "base64",
              media_type: block.mimeType as ToolResultImage["source"]["media_type"],
              data: block.data,
            },
          }
        : { type: "text", text: contentBlockText(block) }
    case "audio":
      return { type: "text", text: contentBlockText(block) }
    case "resource": {
      const r = block.resource
      if (typeof r.text === "string") return { type: "text", text: r.text }
      if (typeof r.blob === "string" && r.mimeType !== undefined && IMAGE_TYPES.has(r.mimeType))
        return {
          type: "image",
          source: {
            type: "base64",
            media_type: r.mimeType as ToolResultImage["source"]["media_type"],
            data: r.blob,
          },
        }
      if (typeof r.blob === "string" && r.mimeType === "application/pdf")
        return {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: r.blob },
          title: r.uri,
        }
      return { type: "text", text: `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]` }
    }
    case "resource_link":
      return { type: "text", text: `[resource link "${block.name}": ${block.uri}]` }
  }
}

/**
 * The default content of a tool result: text blocks as text, images (JPEG, PNG, GIF, WebP) as image
 * blocks, embedded PDFs as document blocks, resource text as text, anything else as a short text
 * placeholder; the JSON of `structuredContent` when there is no content; never empty.
 *
 * @since 0.1.0
 */
export const toolResultContent = (result: ToolResult): ToolResultBlock["content"] => {
  const blocks = result.content.map(blockOf)
  if (blocks.length === 0 && result.structuredContent !== undefined)
    blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) })
  if (blocks.length === 0) blocks.push({ type: "text", text: "(the tool returned no output)" })
  return blocks
}

interface PendingCall {
  readonly callId: string
  readonly name: string
  readonly input: unknown
}

const callsOf = (response: unknown): PendingCall[] => {
  const content = Array.isArray(response)
    ? response
    : isJsonObject(response) && Array.isArray(response.content)
      ? response.content
      : []
  return content
    .filter((b): b is ContentBlockLike => isJsonObject(b) && b.type === "tool_use")
    .map((b) => ({
      callId: typeof b.id === "string" ? b.id : "",
      name: typeof b.name === "string" ? b.name : "",
      input: b.input,
    }))
}

const failure = (callId: string, text: string): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: callId,
  content: [{ type: "text", text }],
  is_error: true,
})

/**
 * Executes every `tool_use` block of a response and returns what happened to each, in the response's
 * order. Calls run concurrently (up to `maxConcurrency`). Never rejects because of a call; it rejects
 * only when `tools` is not given and listing the service fails.
 *
 * @since 0.1.0
 */
export const executeToolCalls = async (
  service: ToolService,
  response: MessageLike | readonly ContentBlockLike[],
  options: RunToolCallsOptions = {},
): Promise<ToolCallOutcome[]> => {
  const calls = callsOf(response)
  if (calls.length === 0) return []
  const byName =
    options.tools?.byName ??
    toAnthropicTools(await listAllTools(service, options.context ? { context: options.context } : {})).byName
  const format = options.formatResult ?? ((result: ToolResult) => toolResultContent(result))
  const run = async (call: PendingCall): Promise<ToolCallOutcome> => {
    const base = { callId: call.callId, name: call.name }
    const exported = byName.get(call.name)
    if (exported === undefined)
      return {
        ...base,
        errorCode: "TOOL_NOT_FOUND",
        block: failure(call.callId, unknownToolText(call.name, [...byName.keys()])),
      }
    const toolId = exported.id
    const input = call.input === undefined || call.input === null ? {} : call.input
    if (!isJsonObject(input))
      return {
        ...base,
        toolId,
        errorCode: "INVALID_INPUT",
        block: failure(
          call.callId,
          `Error [INVALID_INPUT] calling "${call.name}": the input must be a JSON object, got ${Array.isArray(input) ? "an array" : typeof input}.`,
        ),
      }
    const outcome = await callToolForModel(service, {
      callId: call.callId,
      name: call.name,
      toolId,
      arguments: input,
      ...(options.context ? { context: options.context } : {}),
    })
    if (!outcome.ok)
      return {
        ...base,
        toolId,
        arguments: input,
        errorCode: outcome.errorCode,
        block: failure(call.callId, outcome.text),
      }
    const { result } = outcome
    const block: ToolResultBlock = {
      type: "tool_result",
      tool_use_id: call.callId,
      content: format(result, { name: call.name, toolId }),
      ...(result.isError === true ? { is_error: true } : {}),
    }
    return { ...base, toolId, arguments: input, result, block }
  }
  return mapConcurrent(calls, options.maxConcurrency ?? Number.POSITIVE_INFINITY, async (call) => {
    const outcome = await run(call)
    options.onOutcome?.(outcome)
    return outcome
  })
}

/**
 * Executes every `tool_use` block of a response through `service` and returns the `tool_result` blocks
 * to send back, in the response's order: the content of the next `user` message. Failures become
 * results with `is_error: true` (see the module doc); nothing about one call can make the others fail.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk"
 *
 * const client = new Anthropic()
 * const set = toAnthropicTools(await listAllTools(service))
 * const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Oslo?" }]
 * const message = await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1024, messages, tools: set.tools })
 * messages.push({ role: "assistant", content: message.content })
 * messages.push({ role: "user", content: await runToolCalls(service, message, { tools: set }) })
 * ```
 * @since 0.1.0
 */
export const runToolCalls = async (
  service: ToolService,
  response: MessageLike | readonly ContentBlockLike[],
  options: RunToolCallsOptions = {},
): Promise<ToolResultBlock[]> => (await executeToolCalls(service, response, options)).map((o) => o.block)
