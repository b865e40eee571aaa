/**
 * Search-mode filtering. In search mode a gateway lists a small view of its tools (typically the
 * search meta-tools) and the model finds the others by searching; the mode itself belongs to
 * `@toolplane/discovery`, so this layer takes it as a parameter: any {@link Middleware}, placed between
 * capability filtering and aliasing so it sees visible tools under their original names.
 *
 * @since 0.1.0
 */
import type { ExecutionContext, ExecutionContextInit, Middleware, Tool } from "@toolplane/foundation"
import { type ListingOptions, listingService, resolveListing } from "../internal/listing.js"

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
 * The search-mode layer: `mode` when given, the identity otherwise.
 *
 * @since 0.1.0
 */
export const searchModeFilter =
  (mode: Middleware | undefined): Middleware =>
  (next) =>
    mode ? mode(next) : next

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
