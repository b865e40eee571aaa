/**
 * Conversion of Toolplane results to AI SDK tool outputs.
 */
import { type ToolResult, toolResultText } from "@toolplane/foundation"

type ContentPart =
  | { type: "text"; text: string }
  | { type: "file"; data: { type: "data"; data: string }; mediaType: string; filename?: string }

/** The AI SDK's `ToolResultOutput`, the variants this plugin produces. */
export type ModelOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "content"; value: ContentPart[] }

const fileName = (uri: string): string | undefined => {
  const last = uri.split(/[/\\]/).pop()?.split(/[?#]/)[0]
  return last ? decodeURIComponent(last) : undefined
}

/**
 * What the model reads for a result: a failed result as `error-text`; a result with images, audio or
 * binary resources as `content` (text parts and file parts with their media types); anything else as
 * text (text blocks joined, or the JSON of `structuredContent`).
 */
export const toModelOutput = (result: ToolResult): ModelOutput => {
  if (result.isError) return { type: "error-text", value: toolResultText(result) }
  const binary = result.content.some(
    (b) =>
      b.type === "image" || b.type === "audio" || (b.type === "resource" && b.resource.blob !== undefined),
  )
  if (!binary) return { type: "text", value: toolResultText(result) }
  const value: ContentPart[] = []
  for (const block of result.content) {
    if (block.type === "image" || block.type === "audio")
      value.push({ type: "file", data: { type: "data", data: block.data }, mediaType: block.mimeType })
    else if (block.type === "resource" && block.resource.blob !== undefined) {
      const filename = fileName(block.resource.uri)
      value.push({
        type: "file",
        data: { type: "data", data: block.resource.blob },
        mediaType: block.resource.mimeType ?? "application/octet-stream",
        ...(filename !== undefined ? { filename } : {}),
      })
    } else value.push({ type: "text", text: toolResultText({ content: [block] }) })
  }
  return { type: "content", value }
}
