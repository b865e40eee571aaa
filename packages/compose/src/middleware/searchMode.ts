/**
 * Search-mode filtering. In search mode a gateway lists a small view of its tools (typically the
 * search meta-tools) and the model finds the others by searching; the mode itself belongs to
 * `@toolplane/discovery`, so this layer takes it as a parameter: any {@link Middleware}.
 *
 * `gatewayStack` places it outermost, around the composed toolset (aliases, composites, filtering), so
 * the mode indexes and calls exactly what a client could call, and its listing (the meta-tools) is the
 * whole listing.
 *
 * @since 0.1.0
 */
import type {
  ExecutionContext,
  ExecutionContextInit,
  Middleware,
  Tool,
  ToolService,
} from "@toolplane/foundation"
import {
  type ListingOptions,
  listingService,
  resolveListing,
  type ToolListChanges,
} from "../internal/listing.js"

/**
 * The listing a search mode shows, computed from every visible tool.
 *
 * @since 0.1.0
 */
export type SearchModeView = (
  tools: readonly Tool[],
  context: ExecutionContext | ExecutionContextInit | undefined,
) => readonly Tool[]

/**
 * Options of {@link searchModeFilter}.
 *
 * @since 0.1.0
 */
export interface SearchModeFilterOptions {
  /**
   * Changes of the inner tool list: after each one the mode is applied to the inner service again on
   * the next request, so whatever it keeps (discovery's search index, refreshed only every few
   * seconds otherwise) is rebuilt from the new list and a new tool can be searched and called at once.
   */
  readonly changes?: ToolListChanges
}

/**
 * The search-mode layer: `mode` when given, the identity otherwise.
 *
 * @since 0.1.0
 */
export const searchModeFilter =
  (mode: Middleware | undefined, options: SearchModeFilterOptions = {}): Middleware =>
  (next) => {
    if (!mode) return next
    const changes = options.changes
    if (!changes) return mode(next)
    let current: ToolService | undefined
    changes(() => {
      current = undefined
    })
    const active = (): ToolService => {
      current ??= mode(next)
      return current
    }
    return {
      listTools: (request) => active().listTools(request),
      callTool: (request) => active().callTool(request),
    }
  }

/**
 * A search mode from a view function: the listing is `view(all visible tools)`; calls pass through
 * unchanged, so a tool left out of the view is still callable once found by search.
 *
 * @example
 * ```ts
 * const metaOnly = searchModeView((tools) => tools.filter((t) => t.namespace === "search"))
 * ```
 * @since 0.1.0
 */
export const searchModeView = (view: SearchModeView, options: ListingOptions = {}): Middleware => {
  const listing = resolveListing(options, "searchMode")
  return (next) =>
    listingService({
      next,
      purpose: "compose/search-mode/tools/list",
      listing,
      derive: (inner, context) => view(inner, context),
      call: (request) => next.callTool(request),
    })
}
