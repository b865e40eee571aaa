/**
 * Anthropic's provider-side tool search for large toolsets: every tool goes out with
 * `defer_loading: true` (its definition stays out of the context), next to one tool search tool that
 * Claude calls to find tools; Anthropic answers with `tool_reference` blocks that load the matching
 * definitions, and Claude then calls them with ordinary `tool_use` blocks, which {@link runToolCalls}
 * and {@link runAgentLoop} execute like any other call.
 *
 * Which variant to use when:
 * - `"bm25"` (`tool_search_tool_bm25_20251119`): Claude searches with natural-language queries. Use it
 *   when tools have good descriptions and names that do not follow one scheme: most MCP aggregates.
 * - `"regex"` (`tool_search_tool_regex_20251119`): Claude writes regular expressions (Python `re`)
 *   over names, descriptions and argument names. Use it when names are systematic (Toolplane names
 *   carry the namespace, `github__create_issue`, so `^github__` finds a whole server).
 * - neither (the Toolplane search mode of `@toolplane/compose`/`@toolplane/discovery`, three
 *   meta-tools served like any tools): for models other than Claude, for providers that forbid server
 *   tools (some proxies and Bedrock/Vertex versions), or when the search must see your own index
 *   (examples, intents, usage) or stay on your side.
 * - no search: up to a few dozen tools; deferring costs an extra model turn per discovery.
 *
 * Keep the 3–5 tools used most often loaded (`alwaysLoaded`): a deferred tool costs a search first.
 *
 * @since 0.1.0
 */
import type { Tool } from "@toolplane/foundation"
import {
  type AnthropicTool,
  type AnthropicToolSet,
  type AnthropicToolsOptions,
  toAnthropicTools,
} from "./adapter.js"

/**
 * The tool search tool, regex or BM25 variant (assignable to the `@anthropic-ai/sdk` package's
 * `ToolSearchToolRegex20251119` / `ToolSearchToolBm25_20251119`).
 *
 * @since 0.1.0
 */
export type AnthropicToolSearchTool =
  | { type: "tool_search_tool_regex_20251119"; name: "tool_search_tool_regex" }
  | { type: "tool_search_tool_bm25_20251119"; name: "tool_search_tool_bm25" }

/**
 * Options of {@link toAnthropicToolSearch}.
 *
 * @since 0.1.0
 */
export interface AnthropicToolSearchOptions extends Omit<AnthropicToolsOptions, "deferLoading"> {
  /** `"bm25"` (natural-language queries, the default) or `"regex"`; see the module doc. */
  readonly variant?: "bm25" | "regex"
  /** Tool ids (or a predicate) kept loaded up front; everything else is deferred. */
  readonly alwaysLoaded?: readonly string[] | ((tool: Tool) => boolean)
}

/**
 * A toolset for tool search: the deferred tools, the loaded ones and the search tool (last).
 *
 * @since 0.1.0
 */
export interface AnthropicToolSearchSet extends Omit<AnthropicToolSet, "tools"> {
  readonly tools: (AnthropicTool | AnthropicToolSearchTool)[]
  readonly searchTool: AnthropicToolSearchTool
}

/**
 * The tool search tool of a variant.
 *
 * @since 0.1.0
 */
export const anthropicToolSearchTool = (variant: "bm25" | "regex" = "bm25"): AnthropicToolSearchTool =>
  variant === "regex"
    ? { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }
    : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }

/**
 * Exports a (large) toolset for Anthropic's tool search: every tool not in `alwaysLoaded` gets
 * `defer_loading: true`, and the search tool is appended. Warnings and names are those of
 * {@link toAnthropicTools}.
 *
 * @example
 * ```ts
 * const set = toAnthropicToolSearch(await listAllTools(service), { variant: "regex", alwaysLoaded: ["fs/read_file"] })
 * const result = await runAgentLoop({ client, service, model, messages, tools: set })
 * ```
 * @since 0.1.0
 */
export const toAnthropicToolSearch = (
  tools: readonly Tool[],
  options: AnthropicToolSearchOptions = {},
): AnthropicToolSearchSet => {
  const loaded = options.alwaysLoaded
  const keep =
    typeof loaded === "function"
      ? loaded
      : (
          (ids: ReadonlySet<string>) => (t: Tool) =>
            ids.has(t.id)
        )(new Set(loaded ?? []))
  const set = toAnthropicTools(tools, {
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(options.cacheTools !== undefined ? { cacheTools: options.cacheTools } : {}),
    deferLoading: (tool) => !keep(tool),
  })
  const searchTool = anthropicToolSearchTool(options.variant)
  return { ...set, tools: [...set.tools, searchTool], searchTool }
}
