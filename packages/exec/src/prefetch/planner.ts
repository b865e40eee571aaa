/**
 * The prefetch planner's declared source: follow-up links of enrichers' value models. A link projects
 * values out of the previous result by JSON pointer into one argument of the follow-up, unless the
 * enricher's own `projectArgs` builds the arguments.
 *
 * @since 0.1.0
 */
import type { Enricher, FollowUpLink, JsonValue, ToolResult } from "@toolplane/foundation"
import { resolvePointer } from "./pointer.js"

/**
 * A proposed speculative call.
 *
 * @since 0.1.0
 */
export interface Proposal {
  readonly toolId: string
  readonly arguments: Readonly<Record<string, unknown>>
  /** Estimated probability that the caller makes this call next (1 for declared links). */
  readonly confidence: number
  /** The source: a declared link, a learned pattern, or the caller's latest message. */
  readonly origin: "declared" | "learned" | "message"
}

/**
 * The JSON a result carries: its structured content, else its first text block parsed as JSON, else that
 * text.
 *
 * @since 0.1.0
 */
export const resultJson = (result: ToolResult): JsonValue => {
  if (result.structuredContent !== undefined) return result.structuredContent as JsonValue
  const first = result.content[0]
  if (first === undefined || first.type !== "text") return null
  const text = (first as { text: string }).text
  const c = text.charCodeAt(0)
  if (c === 123 || c === 91) {
    try {
      return JSON.parse(text) as JsonValue
    } catch {
      return text
    }
  }
  return text
}

/**
 * The generic projection of a link: the value at `link.projection` (the whole result without one); an
 * array gives one call per element; each value goes into `link.projectionArg`, or is the arguments object
 * itself when no argument is named.
 *
 * @since 0.1.0
 */
export const projectLink = (
  result: JsonValue,
  link: FollowUpLink,
  max: number,
): Record<string, unknown>[] => {
  const selected = link.projection === undefined ? result : resolvePointer(result, link.projection)
  if (selected === undefined) return []
  if (link.projection === undefined && link.projectionArg === undefined) return [{}]
  const values = Array.isArray(selected) ? selected.slice(0, max) : [selected]
  const out: Record<string, unknown>[] = []
  for (const value of values) {
    if (link.projectionArg !== undefined) out.push({ [link.projectionArg]: value })
    else if (value !== null && typeof value === "object" && !Array.isArray(value))
      out.push({ ...(value as Record<string, unknown>) })
  }
  return out
}

/**
 * Proposals from the follow-up links the given enrichers declare for `toolId`.
 *
 * @since 0.1.0
 */
export const declaredProposals = (
  enrichers: readonly Enricher[],
  toolId: string,
  result: ToolResult,
  max: number,
): Proposal[] => {
  const out: Proposal[] = []
  let json: JsonValue | undefined
  for (const enricher of enrichers) {
    const links = enricher.valueModel(toolId)?.followUps
    if (links === undefined) continue
    for (const link of links) {
      json ??= resultJson(result)
      const list = enricher.projectArgs(toolId, json, link) ?? projectLink(json, link, max)
      for (const args of list.slice(0, max))
        out.push({ toolId: link.toolId, arguments: args, confidence: 1, origin: "declared" })
    }
  }
  return out
}
