/**
 * The text a model reads for a tool result, shared by the provider plugins whose tool messages are text
 * (OpenAI, the AI SDK and LangChain exports) and by those that mix text with media (Gemini, Anthropic)
 * for the blocks they cannot send as media.
 *
 * @since 0.1.0
 */
import type { ContentBlock } from "./content.js"
import type { ToolResult } from "./toolResult.js"

/** The decoded size in bytes of base64 data (approximate: padding is not subtracted). */
const approxBytes = (base64: string): number => Math.floor((base64.length * 3) / 4)

/**
 * The text of one content block: a text block's text, an embedded resource's text, or a short
 * placeholder naming what is not shown (`[image image/png, 1024 bytes, not shown]`,
 * `[resource file:///a.bin]`, `[resource link "a": file:///a]`).
 *
 * @since 0.1.0
 */
export const contentBlockText = (block: ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${approxBytes(block.data)} bytes, not shown]`
    case "resource":
      return block.resource.text ?? `[resource ${block.resource.uri}]`
    case "resource_link":
      return `[resource link "${block.name}": ${block.uri}]`
  }
}

/**
 * The text of a tool result: the blocks' text joined by newlines (see {@link contentBlockText}), the
 * JSON of `structuredContent` when there is no text, `(the tool returned no output)` when there is
 * nothing, and `Error: ` in front of a failed result. Never empty.
 *
 * @example
 * ```ts
 * toolResultText({ content: [{ type: "text", text: "12°C" }] }) // "12°C"
 * toolResultText({ content: [], structuredContent: { t: 12 } }) // '{"t":12}'
 * ```
 * @since 0.1.0
 */
export const toolResultText = (result: ToolResult): string => {
  let text = result.content.map(contentBlockText).join("\n")
  if (text === "" && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent)
  if (text === "") text = "(the tool returned no output)"
  return result.isError === true && !text.startsWith("Error") ? `Error: ${text}` : text
}
