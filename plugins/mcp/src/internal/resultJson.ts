/**
 * The relay fast path for `tools/call` results: an MCP backend keeps the JSON text an upstream server sent
 * for a result next to the result it parsed, and the serving side writes that text verbatim instead of
 * encoding the result again, as long as the result object reaches it unmodified.
 *
 * How it stays correct:
 *
 * - Client transports call {@link keepMessageText} with each message they parsed and the exact text it came
 *   from (one message per text: never a batch).
 * - `mcpBackend` calls {@link relayResult} with the result it returns and the upstream result it was made
 *   from. The text is kept only when the upstream result has nothing the backend drops or rewrites (its
 *   keys are `content`, `structuredContent`, `isError`, `_meta`, and no continuation cursor), on a
 *   non-enumerable symbol: a middleware that builds a new result (`{ ...result, content }`) builds an
 *   object without it.
 * - {@link resultJson} serves the kept text only when the result still holds what it held when the text was
 *   kept: the same `content` array with the same blocks and the same text/data of each block, the same
 *   `structuredContent` and `_meta` objects, the same `isError`, and no `nextCursor`. Results are
 *   immutable values (every field of `ToolResult` is `readonly`); a middleware that changes a result
 *   returns a new one.
 *
 * @internal
 * @since 0.1.0
 */
import type { ToolResult } from "@toolplane/foundation"
import { NEXT_CURSOR_META_KEY } from "../adapter.js"

/** On a parsed upstream result: the text of the whole message it came in. */
const MESSAGE_TEXT = Symbol.for("@toolplane/plugin-mcp/messageText")
/** On a backend result: what it was made from (non-enumerable). */
const RELAYED = Symbol.for("@toolplane/plugin-mcp/relayedResult")

interface Relayed {
  /** The whole JSON-RPC message text; the result's span is found on first use. */
  readonly message: string
  readonly content: readonly unknown[]
  /** Each block and its payload (text, data, resource text or blob), in order. */
  readonly blocks: readonly unknown[]
  readonly structuredContent: unknown
  readonly meta: unknown
  readonly isError: boolean
  /** The result's JSON text, once extracted; `null` when the message cannot be split safely. */
  text?: string | null
}

type Json = Record<string, unknown>

/**
 * Keeps the text a message was parsed from on its `result` (responses only), for {@link relayResult}.
 * Called by client transports for each message they read alone (not for batches).
 *
 * @internal
 * @since 0.1.0
 */
export const keepMessageText = (message: unknown, text: string): void => {
  const result = (message as { result?: unknown }).result
  if (typeof result === "object" && result !== null && !Array.isArray(result))
    (result as { [MESSAGE_TEXT]?: string })[MESSAGE_TEXT] = text
}

const payloadOf = (block: unknown): unknown => {
  if (typeof block !== "object" || block === null) return block
  const b = block as Json
  if (typeof b.text === "string") return b.text
  if (typeof b.data === "string") return b.data
  const resource = b.resource as Json | undefined
  if (resource !== undefined && typeof resource === "object" && resource !== null)
    return resource.text ?? resource.blob
  return b.uri
}

const RELAYABLE_KEYS = new Set(["content", "structuredContent", "isError", "_meta"])

/**
 * Marks `result` (what a backend returns) as made unchanged from `upstream` (the parsed upstream result),
 * when `upstream`'s message text was kept and `result` carries everything `upstream` had. Returns
 * `result`.
 *
 * @internal
 * @since 0.1.0
 */
export const relayResult = <R extends ToolResult>(result: R, upstream: unknown): R => {
  const message = (upstream as { [MESSAGE_TEXT]?: string } | undefined)?.[MESSAGE_TEXT]
  if (message === undefined) return result
  const up = upstream as Json
  // A modern server's `resultType: "complete"` is valid in both eras' results (2025 results are open).
  for (const key in up)
    if (!RELAYABLE_KEYS.has(key) && !(key === "resultType" && up.resultType === "complete")) return result
  if (!Array.isArray(up.content) || result.content !== up.content) return result
  const meta = up._meta as Json | undefined
  if (meta !== undefined && (typeof meta !== "object" || meta === null || NEXT_CURSOR_META_KEY in meta))
    return result
  if (up.isError !== undefined && typeof up.isError !== "boolean") return result
  const content = result.content
  const blocks: unknown[] = new Array(content.length * 2)
  for (let i = 0; i < content.length; i++) {
    blocks[2 * i] = content[i]
    blocks[2 * i + 1] = payloadOf(content[i])
  }
  const relayed: Relayed = {
    message,
    content,
    blocks,
    structuredContent: result.structuredContent,
    meta: result._meta,
    isError: result.isError === true,
  }
  Object.defineProperty(result, RELAYED, { value: relayed, enumerable: false, configurable: true })
  return result
}

const unchanged = (result: ToolResult, relayed: Relayed): boolean => {
  if (
    result.content !== relayed.content ||
    result.structuredContent !== relayed.structuredContent ||
    result._meta !== relayed.meta ||
    (result.isError === true) !== relayed.isError ||
    result.nextCursor !== undefined
  )
    return false
  const content = result.content
  const blocks = relayed.blocks
  if (content.length * 2 !== blocks.length) return false
  for (let i = 0; i < content.length; i++) {
    const block = content[i]
    if (block !== blocks[2 * i] || payloadOf(block) !== blocks[2 * i + 1]) return false
  }
  return true
}

const WS_SPACE = 32
const WS_TAB = 9
const WS_LF = 10
const WS_CR = 13
const QUOTE = 34
const BACKSLASH = 92

const skipWs = (s: string, i: number): number => {
  for (;;) {
    const c = s.charCodeAt(i)
    if (c === WS_SPACE || c === WS_LF || c === WS_CR || c === WS_TAB) i++
    else return i
  }
}

/** Index after the string starting at `i` (a quote), or -1. */
const skipString = (s: string, i: number): number => {
  let j = i + 1
  for (;;) {
    const q = s.indexOf('"', j)
    if (q < 0) return -1
    let backslashes = 0
    for (let k = q - 1; s.charCodeAt(k) === BACKSLASH; k--) backslashes++
    if (backslashes % 2 === 0) return q + 1
    j = q + 1
  }
}

/** Index after the JSON value starting at `i` (text known to be valid JSON), or -1. */
const skipValue = (s: string, i: number): number => {
  const first = s.charCodeAt(i)
  if (first === QUOTE) return skipString(s, i)
  if (first !== 123 /* { */ && first !== 91 /* [ */) {
    // A literal or number: up to the next delimiter.
    let j = i
    for (;;) {
      const c = s.charCodeAt(j)
      if (
        Number.isNaN(c) ||
        c === 44 ||
        c === 125 ||
        c === 93 ||
        c === WS_SPACE ||
        c === WS_LF ||
        c === WS_CR ||
        c === WS_TAB
      )
        return j === i ? -1 : j
      j++
    }
  }
  let depth = 0
  let j = i
  const n = s.length
  while (j < n) {
    const c = s.charCodeAt(j)
    if (c === QUOTE) {
      j = skipString(s, j)
      if (j < 0) return -1
      continue
    }
    if (c === 123 || c === 91) depth++
    else if (c === 125 || c === 93) {
      depth--
      if (depth === 0) return j + 1
    }
    j++
  }
  return -1
}

/**
 * The text of the `result` member of a JSON-RPC message's text, when the message is one object with
 * exactly one `result` member; otherwise `null`.
 *
 * @internal
 * @since 0.1.0
 */
export const resultSpan = (message: string): string | null => {
  let i = skipWs(message, 0)
  if (message.charCodeAt(i) !== 123) return null
  i = skipWs(message, i + 1)
  let found: string | null = null
  if (message.charCodeAt(i) === 125) return null
  for (;;) {
    if (message.charCodeAt(i) !== QUOTE) return null
    const keyEnd = skipString(message, i)
    if (keyEnd < 0) return null
    const rawKey = message.slice(i + 1, keyEnd - 1)
    const key = rawKey.includes("\\") ? (JSON.parse(`"${rawKey}"`) as string) : rawKey
    i = skipWs(message, keyEnd)
    if (message.charCodeAt(i) !== 58 /* : */) return null
    i = skipWs(message, i + 1)
    const end = skipValue(message, i)
    if (end < 0) return null
    if (key === "result") {
      if (found !== null) return null
      found = message.slice(i, end)
    }
    i = skipWs(message, end)
    const c = message.charCodeAt(i)
    if (c === 125) return skipWs(message, i + 1) === message.length ? found : null
    if (c !== 44) return null
    i = skipWs(message, i + 1)
  }
}

/**
 * The upstream JSON text of a result relayed unchanged, or `undefined` (also when that text spans lines:
 * it is always one line, safe for an SSE `data:` line).
 *
 * @internal
 * @since 0.1.0
 */
export const relayedText = (result: ToolResult): string | undefined => {
  const relayed = (result as { [RELAYED]?: Relayed })[RELAYED]
  if (relayed === undefined || !unchanged(result, relayed)) return undefined
  if (relayed.text === undefined) {
    const span = resultSpan(relayed.message)
    // One line, always: the text may go into an SSE `data:` line (a line break can only be whitespace
    // between tokens here, as JSON strings escape theirs).
    relayed.text = span === null || span.includes("\n") || span.includes("\r") ? null : span
  }
  return relayed.text ?? undefined
}

/**
 * The MCP `CallToolResult` JSON text of a tool result, for the `result` member of a `tools/call` answer:
 * the upstream server's own text when the result was relayed from an MCP backend and reached here
 * unchanged, else `JSON.stringify` of its MCP form (`content`, `structuredContent`, `isError` when true,
 * `_meta` with the continuation cursor under `toolplane.dev/nextCursor`).
 *
 * @example
 * ```ts no-check
 * const result = await service.callTool({ name, arguments: args, context })
 * res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson(result)}}`)
 * ```
 * @internal
 * @since 0.1.0
 */
export const resultJson = (result: ToolResult): string => {
  const kept = relayedText(result)
  if (kept !== undefined) return kept
  const meta =
    result.nextCursor !== undefined
      ? { ...(result._meta ?? {}), [NEXT_CURSOR_META_KEY]: result.nextCursor }
      : result._meta
  const out: Json = { content: result.content }
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent
  if (result.isError) out.isError = true
  if (meta !== undefined) out._meta = meta
  return JSON.stringify(out)
}
