/**
 * Tool filters: predicates over canonical tools, AND-composed by the toolset builder in the order they
 * were added. Every filter is a plain function `(tool) => boolean`, so a custom predicate is a filter.
 *
 * @since 0.1.0
 */
import { normalizeTag, type Tool } from "@toolplane/foundation"
import { dual } from "effect/Function"
import { compileIdPatterns } from "../internal/glob.js"

/**
 * A predicate over tools. Must be pure and safe to call concurrently (toolsets are shared).
 *
 * @since 0.1.0
 */
export type ToolFilter = (tool: Tool) => boolean

/**
 * Keeps tools whose namespace is one of `namespaces`.
 *
 * @example
 * ```ts
 * byNamespace("github", "jira")
 * ```
 * @since 0.1.0
 */
export const byNamespace = (...namespaces: readonly string[]): ToolFilter => {
  const set = new Set(namespaces)
  return (tool) => set.has(tool.namespace)
}

const tagSet = (tags: readonly string[]): Set<string> => new Set(tags.map(normalizeTag))
const toolTags = (tool: Tool): readonly string[] => tool.tags ?? []

/**
 * Keeps tools carrying at least one of `tags` (tags are compared normalized, see `normalizeTag`).
 *
 * @since 0.1.0
 */
export const tagsAny = (...tags: readonly string[]): ToolFilter => {
  const set = tagSet(tags)
  return (tool) => toolTags(tool).some((t) => set.has(normalizeTag(t)))
}

/**
 * Keeps tools carrying every one of `tags`.
 *
 * @since 0.1.0
 */
export const tagsAll = (...tags: readonly string[]): ToolFilter => {
  const wanted = [...tagSet(tags)]
  return (tool) => {
    const own = new Set(toolTags(tool).map(normalizeTag))
    return wanted.every((t) => own.has(t))
  }
}

/**
 * Keeps tools carrying none of `tags`.
 *
 * @since 0.1.0
 */
export const tagsNone = (...tags: readonly string[]): ToolFilter => {
  const any = tagsAny(...tags)
  return (tool) => !any(tool)
}

/**
 * Keeps tools whose category is one of `categories`.
 *
 * @since 0.1.0
 */
export const byCategory = (...categories: readonly string[]): ToolFilter => {
  const set = new Set(categories)
  return (tool) => tool.category !== undefined && set.has(tool.category)
}

/**
 * Keeps tools whose id matches a pattern: an exact id, a glob (`*` matches within one segment,
 * `**` across `/`, `?` one character) or `re:<regular expression>` (unanchored unless you anchor it).
 * A malformed regular expression is a `ConfigError`.
 *
 * @example
 * ```ts
 * allowIds("github/*", "jira/get_issue", "re:^docs/(search|fetch)$")
 * ```
 * @since 0.1.0
 */
export const allowIds = (...patterns: readonly string[]): ToolFilter => {
  const match = compileIdPatterns(patterns, "allowIds")
  return (tool) => match(tool.id)
}

/**
 * Drops tools whose id matches a pattern (same syntax as {@link allowIds}).
 *
 * @since 0.1.0
 */
export const denyIds = (...patterns: readonly string[]): ToolFilter => {
  const match = compileIdPatterns(patterns, "denyIds")
  return (tool) => !match(tool.id)
}

/**
 * Keeps only tools annotated `readOnlyHint: true`.
 *
 * @since 0.1.0
 */
export const readOnlyOnly: ToolFilter = (tool) => tool.annotations?.readOnlyHint === true

/**
 * Hides destructive tools: those annotated `destructiveHint: true` and not read-only. With
 * `{ assumeDestructive: true }` a tool that is not read-only and does not say `destructiveHint: false`
 * is hidden too (the MCP default for a missing hint is "destructive").
 *
 * @since 0.1.0
 */
export const hideDestructive = (options: { readonly assumeDestructive?: boolean } = {}): ToolFilter => {
  const assume = options.assumeDestructive === true
  return (tool) => {
    const a = tool.annotations
    if (a?.readOnlyHint === true) return true
    return assume ? a?.destructiveHint === false : a?.destructiveHint !== true
  }
}

/**
 * Keeps tools whose annotations satisfy `predicate` (missing annotations are `{}`).
 *
 * @since 0.1.0
 */
export const byAnnotations =
  (predicate: (annotations: NonNullable<Tool["annotations"]>) => boolean): ToolFilter =>
  (tool) =>
    predicate(tool.annotations ?? {})

/**
 * Keeps tools every filter keeps (no filters keeps everything).
 *
 * @since 0.1.0
 */
export const and =
  (...filters: readonly ToolFilter[]): ToolFilter =>
  (tool) => {
    for (const f of filters) if (!f(tool)) return false
    return true
  }

/**
 * Keeps tools at least one filter keeps (no filters keeps nothing).
 *
 * @since 0.1.0
 */
export const or =
  (...filters: readonly ToolFilter[]): ToolFilter =>
  (tool) =>
    filters.some((f) => f(tool))

/**
 * Keeps the tools `filter` drops.
 *
 * @since 0.1.0
 */
export const not =
  (filter: ToolFilter): ToolFilter =>
  (tool) =>
    !filter(tool)

/**
 * Applies a filter to a list of tools; data-first or data-last (pipe-friendly).
 *
 * @example
 * ```ts
 * filterTools(tools, readOnlyOnly)
 * pipe(tools, filterTools(byNamespace("github")))
 * ```
 * @since 0.1.0
 */
export const filterTools: {
  (filter: ToolFilter): (tools: readonly Tool[]) => Tool[]
  (tools: readonly Tool[], filter: ToolFilter): Tool[]
} = dual(2, (tools: readonly Tool[], filter: ToolFilter): Tool[] => tools.filter((t) => filter(t)))
