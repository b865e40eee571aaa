/** Toolplane results as LangChain tool message content, and LangChain tool outputs as results. */
import {
  contentBlockText,
  isJsonObject,
  type ToolResult,
  textResult,
  toolResultText,
  toToolResult,
} from "@toolplane/foundation"

/** LangChain message content: a string or standard content blocks. */
export type LangChainContent =
  | string
  | ({ type: "text"; text: string } | { type: "image_url"; image_url: { url: string } })[]

/**
 * What the model reads for a result: text blocks joined (the JSON of `structuredContent` when there is
 * no text), `Error: ` in front of a failed result; with images, content blocks (text and `image_url`
 * data URLs).
 */
export const toLangChainContent = (result: ToolResult): LangChainContent => {
  if (!result.isError && result.content.some((b) => b.type === "image"))
    return result.content.map((block) =>
      block.type === "image"
        ? { type: "image_url" as const, image_url: { url: `data:${block.mimeType};base64,${block.data}` } }
        : { type: "text" as const, text: contentBlockText(block) },
    )
  return toolResultText(result)
}

/**
 * A LangChain tool's output as a result: a `ToolMessage` (or anything with `content`) by its content
 * (a failed message, `status: "error"`, as a failed result), a string as text, anything else as
 * structured content or JSON text.
 */
export const fromLangChainOutput = (output: unknown): ToolResult => {
  if (isJsonObject(output) && "content" in output && ("tool_call_id" in output || "lc_kwargs" in output)) {
    const content = output.content
    const failed = output.status === "error"
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content
              .map((c) => (isJsonObject(c) && typeof c.text === "string" ? c.text : JSON.stringify(c)))
              .join("\n")
          : JSON.stringify(content)
    return failed ? { ...textResult(text), isError: true } : textResult(text)
  }
  return toToolResult(output)
}
