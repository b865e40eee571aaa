/**
 * Tool results: MCP-shaped (`content`, `structuredContent`, `isError`), plus helpers to build them and to
 * turn whatever a handler returned into one.
 *
 * @since 0.1.0
 */
import { type ContentBlock, isContentBlock, text } from "./content.js"
import type { JsonValue } from "./jsonSchema.js"

/**
 * The result of a tool call.
 *
 * @since 0.1.0
 */
export interface ToolResult {
  readonly content: readonly ContentBlock[]
  readonly structuredContent?: Readonly<Record<string, unknown>>
  /** `true` when the tool reports a failure the model should see (not a protocol error). */
  readonly isError?: boolean
  /** Continuation cursor of a paginated tool: pass it back to get the next page. */
  readonly nextCursor?: string
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * What a backend returns: a result, plus the opaque state a paginated tool resumes from. The runner signs
 * `continuation` into the result's `nextCursor`; clients never see the raw state.
 *
 * @since 0.1.0
 */
export interface BackendResult extends ToolResult {
  readonly continuation?: JsonValue
}

/**
 * A result with one text block.
 *
 * @since 0.1.0
 */
export const textResult = (value: string): ToolResult => ({ content: [text(value)] })

/**
 * A result carrying structured data, with its JSON text as the content block for clients that only read
 * text.
 *
 * @since 0.1.0
 */
export const structuredResult = (value: Readonly<Record<string, unknown>>): ToolResult => ({
  content: [text(JSON.stringify(value))],
  structuredContent: value,
})

/**
 * A failed result the model can read (`isError: true`).
 *
 * @since 0.1.0
 */
export const errorResult = (message: string, structured?: Readonly<Record<string, unknown>>): ToolResult =>
  structured
    ? { content: [text(message)], structuredContent: structured, isError: true }
    : { content: [text(message)], isError: true }

const PAGE = Symbol.for("@toolplane/foundation/Page")

/**
 * A page of a paginated tool's output: the value to return now and the opaque state to resume from, or
 * `undefined` on the last page.
 *
 * @since 0.1.0
 */
export interface Page<A = unknown> {
  readonly [PAGE]: true
  readonly value: A
  readonly continuation: JsonValue | undefined
}

/**
 * Marks a handler's return value as one page of a paginated tool.
 *
 * @example
 * ```ts
 * defineTool({
 *   id: "logs/search",
 *   input: z.object({ q: z.string() }),
 *   handler: async ({ q }, { resume }) => {
 *     const offset = typeof resume === "number" ? resume : 0
 *     const rows = await searchLogs(q, offset, 50)
 *     return page({ rows }, rows.length === 50 ? offset + 50 : undefined)
 *   },
 * })
 * ```
 * @since 0.1.0
 */
export const page = <A>(value: A, continuation: JsonValue | undefined): Page<A> => ({
  [PAGE]: true,
  value,
  continuation,
})

/**
 * Tells whether a value was made by {@link page}.
 *
 * @since 0.1.0
 */
export const isPage = (value: unknown): value is Page =>
  typeof value === "object" && value !== null && PAGE in value

/**
 * Tells whether a value already is a {@link ToolResult}.
 *
 * @since 0.1.0
 */
export const isToolResult = (value: unknown): value is ToolResult =>
  typeof value === "object" &&
  value !== null &&
  Array.isArray((value as ToolResult).content) &&
  (value as ToolResult).content.every(isContentBlock)

/**
 * Turns whatever a handler returned into a result: a {@link ToolResult} passes through; a string becomes
 * text; a content block becomes a one-block result; an object becomes structured content; `undefined`
 * becomes an empty result; anything else becomes its JSON text.
 *
 * @since 0.1.0
 */
export const toToolResult = (value: unknown): BackendResult => {
  if (isPage(value)) {
    const inner = toToolResult(value.value)
    return value.continuation === undefined ? inner : { ...inner, continuation: value.continuation }
  }
  if (value === undefined || value === null) return { content: [] }
  if (typeof value === "string") return textResult(value)
  if (isToolResult(value)) return value
  if (isContentBlock(value)) return { content: [value] }
  if (typeof value === "object" && !Array.isArray(value))
    return structuredResult(value as Record<string, unknown>)
  return textResult(JSON.stringify(value))
}
