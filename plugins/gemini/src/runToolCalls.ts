/**
 * Running the `functionCall` parts of a Gemini response through a tool service, and building exactly
 * what goes back to the model: one `functionResponse` part per call, `{ output }` on success and
 * `{ error }` on failure, images and other media as the response's inline-data parts. Nothing a model or
 * a tool does wrong escapes as an exception: unknown functions, invalid arguments, approval requirements
 * and tool failures all become responses the model can read.
 *
 * @since 0.1.0
 */
import {
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
import { type GeminiToolSet, toGeminiTools } from "./adapter.js"
import { restoreArguments } from "./schema.js"

/**
 * A part of a response; parts with `functionCall` are executed, the rest ignored.
 *
 * @since 0.1.0
 */
export interface PartLike {
  readonly functionCall?: {
    readonly id?: string
    readonly name?: string
    readonly args?: Record<string, unknown>
  }
  readonly text?: string
  readonly thought?: boolean
}

/**
 * A `Content` (`{ role, parts }`).
 *
 * @since 0.1.0
 */
export interface ContentLike {
  readonly role?: string
  readonly parts?: readonly PartLike[]
}

/**
 * A `generateContent` response (structurally `GenerateContentResponse`); the first candidate is used.
 *
 * @since 0.1.0
 */
export interface GenerateContentResponseLike {
  readonly candidates?: readonly { readonly content?: ContentLike }[]
}

/**
 * A media part of a function response (assignable to `FunctionResponsePart`).
 *
 * @since 0.1.0
 */
export interface FunctionResponseMedia {
  inlineData: { mimeType: string; data: string }
}

/**
 * A `functionResponse` part (assignable to the `@google/genai` package's `Part`).
 *
 * @since 0.1.0
 */
export interface FunctionResponsePartOut {
  functionResponse: {
    id?: string
    name: string
    response: { output: unknown } | { error: string }
    parts?: FunctionResponseMedia[]
  }
}

/**
 * What happened to one call.
 *
 * @since 0.1.0
 */
export interface ToolCallOutcome {
  /** The call's `id`, or `name#index` when the model sent none. */
  readonly callId: string
  /** The name the model called. */
  readonly name: string
  readonly toolId?: string
  /** The arguments passed to the service (after restoring renamed properties and JSON text). */
  readonly arguments?: Readonly<Record<string, unknown>>
  readonly result?: ToolResult
  /** `code` of the failure: a `ToolError` code or `INVALID_INPUT`. */
  readonly errorCode?: string
  /** The part sent back to the model. */
  readonly part: FunctionResponsePartOut
}

/**
 * Options of {@link runToolCalls}.
 *
 * @since 0.1.0
 */
export interface RunToolCallsOptions {
  /** The set returned by `toGeminiTools` for the tools the model saw. Default: the service, exported again. */
  readonly tools?: Pick<GeminiToolSet, "byName">
  /** Context for every call; the call id is the model's. */
  readonly context?: ExecutionContextInit
  /** At most this many calls run at once. Default: all. */
  readonly maxConcurrency?: number
  /**
   * Send images, audio and PDFs of a result as inline-data parts of the function response (Gemini 3
   * models read them). Default `true`; `false` puts a text placeholder in the output instead.
   */
  readonly media?: boolean
  /** Called once per call, after it finished. */
  readonly onOutcome?: (outcome: ToolCallOutcome) => void
}

/**
 * The function response of a result: `{ output }` with the structured content or the text, or
 * `{ error }` for a result with `isError`; media as inline-data parts (when `media` is on).
 *
 * @since 0.1.0
 */
export const functionResponseOf = (
  result: ToolResult,
  options: { readonly media?: boolean } = {},
): Pick<FunctionResponsePartOut["functionResponse"], "response" | "parts"> => {
  const media = options.media ?? true
  const texts: string[] = []
  const parts: FunctionResponseMedia[] = []
  for (const block of result.content) {
    if (block.type === "text") texts.push(block.text)
    else if (block.type === "resource" && typeof block.resource.text === "string")
      texts.push(block.resource.text)
    else if (media && (block.type === "image" || block.type === "audio"))
      parts.push({ inlineData: { mimeType: block.mimeType, data: block.data } })
    else if (
      media &&
      block.type === "resource" &&
      typeof block.resource.blob === "string" &&
      block.resource.mimeType
    )
      parts.push({ inlineData: { mimeType: block.resource.mimeType, data: block.resource.blob } })
    else texts.push(contentBlockText(block))
  }
  const text = texts.join("\n")
  const extra = parts.length > 0 ? { parts } : {}
  if (result.isError === true)
    return { response: { error: text === "" ? "the tool failed" : text }, ...extra }
  if (result.structuredContent !== undefined)
    return { response: { output: result.structuredContent }, ...extra }
  return {
    response: { output: text === "" && parts.length === 0 ? "(the tool returned no output)" : text },
    ...extra,
  }
}

interface PendingCall {
  readonly id: string | undefined
  readonly callId: string
  readonly name: string
  readonly args: unknown
}

const callsOf = (response: unknown): PendingCall[] => {
  let parts: unknown = response
  if (isJsonObject(response) && Array.isArray(response.candidates))
    parts = (response.candidates[0] as { content?: { parts?: unknown } } | undefined)?.content?.parts
  else if (isJsonObject(response) && Array.isArray(response.parts)) parts = response.parts
  if (!Array.isArray(parts)) return []
  return parts
    .filter(
      (p): p is { functionCall: Record<string, unknown> } => isJsonObject(p) && isJsonObject(p.functionCall),
    )
    .map((p, i) => {
      const fc = p.functionCall
      const name = typeof fc.name === "string" ? fc.name : ""
      const id = typeof fc.id === "string" && fc.id !== "" ? fc.id : undefined
      return { id, callId: id ?? `${name}#${i}`, name, args: fc.args }
    })
}

/**
 * Executes every `functionCall` part of a response and returns what happened to each, in order. Calls
 * run concurrently (up to `maxConcurrency`). Never rejects because of a call.
 *
 * @since 0.1.0
 */
export const executeToolCalls = async (
  service: ToolService,
  response: GenerateContentResponseLike | ContentLike | readonly PartLike[],
  options: RunToolCallsOptions = {},
): Promise<ToolCallOutcome[]> => {
  const calls = callsOf(response)
  if (calls.length === 0) return []
  const byName =
    options.tools?.byName ??
    toGeminiTools(await listAllTools(service, options.context ? { context: options.context } : {})).byName
  const run = async (call: PendingCall): Promise<ToolCallOutcome> => {
    const base = { callId: call.callId, name: call.name }
    const part = (
      response: FunctionResponsePartOut["functionResponse"]["response"],
      parts?: FunctionResponseMedia[],
    ): FunctionResponsePartOut => ({
      functionResponse: {
        ...(call.id !== undefined ? { id: call.id } : {}),
        name: call.name,
        response,
        ...(parts !== undefined ? { parts } : {}),
      },
    })
    const exported = byName.get(call.name)
    if (exported === undefined)
      return {
        ...base,
        errorCode: "TOOL_NOT_FOUND",
        part: part({ error: unknownToolText(call.name, [...byName.keys()]) }),
      }
    const toolId = exported.id
    const raw = call.args === undefined || call.args === null ? {} : call.args
    if (!isJsonObject(raw))
      return {
        ...base,
        toolId,
        errorCode: "INVALID_INPUT",
        part: part({
          error: `Error [INVALID_INPUT] calling "${call.name}": the arguments must be a JSON object.`,
        }),
      }
    const args = restoreArguments(exported.shape, raw)
    const outcome = await callToolForModel(service, {
      callId: call.callId,
      name: call.name,
      toolId,
      arguments: args,
      ...(options.context ? { context: options.context } : {}),
    })
    if (!outcome.ok)
      return {
        ...base,
        toolId,
        arguments: args,
        errorCode: outcome.errorCode,
        part: part({ error: outcome.text }),
      }
    const fr = functionResponseOf(outcome.result, options.media !== undefined ? { media: options.media } : {})
    return { ...base, toolId, arguments: args, result: outcome.result, part: part(fr.response, fr.parts) }
  }
  return mapConcurrent(calls, options.maxConcurrency ?? Number.POSITIVE_INFINITY, async (call) => {
    const outcome = await run(call)
    options.onOutcome?.(outcome)
    return outcome
  })
}

/**
 * Executes every `functionCall` part of a response through `service` and returns the
 * `functionResponse` parts to send back (as the parts of the next `user` content), in order. Failures
 * become `{ error }` responses; nothing about one call can make the others fail.
 *
 * @example
 * ```ts
 * import { type Content, GoogleGenAI } from "@google/genai"
 *
 * const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY })
 * const set = toGeminiTools(await listAllTools(service))
 * const contents: Content[] = [{ role: "user", parts: [{ text: "Weather in Oslo?" }] }]
 * const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents, config: { tools: [set.tool] } })
 * contents.push(response.candidates![0]!.content!)
 * contents.push({ role: "user", parts: await runToolCalls(service, response, { tools: set }) })
 * ```
 * @since 0.1.0
 */
export const runToolCalls = async (
  service: ToolService,
  response: GenerateContentResponseLike | ContentLike | readonly PartLike[],
  options: RunToolCallsOptions = {},
): Promise<FunctionResponsePartOut[]> =>
  (await executeToolCalls(service, response, options)).map((o) => o.part)
