/**
 * Capability filtering: a toolset's filters and policies applied to a live tool service. Hidden tools
 * are left out of the listing and cannot be called: calling one is `ToolNotFound`, exactly like a tool
 * that does not exist (so a caller learns nothing about hidden tools).
 *
 * @since 0.1.0
 */
import { type CallToolRequest, type Middleware, suggestToolIds, ToolNotFound } from "@toolplane/foundation"
import {
  type ListingCache,
  type ListingOptions,
  listingService,
  lookup,
  resolveListing,
} from "../internal/listing.js"
import { memoizeByTool } from "../internal/memo.js"
import type { ToolFilter } from "../toolset/filters.js"
import { makeSelection, type ToolSelection } from "../toolset/selection.js"

/**
 * What decides visibility: a selection, anything that has one (a `Toolset`), anything that makes one
 * (a `ToolsetBuilder`), or a bare filter.
 *
 * @since 0.1.0
 */
export type CapabilitySource =
  | ToolSelection
  | { readonly selection: ToolSelection }
  | { selection(): ToolSelection }
  | ToolFilter

/**
 * The selection a capability source stands for.
 *
 * @since 0.1.0
 */
export const selectionOf = (source: CapabilitySource): ToolSelection => {
  if (typeof source === "function") return makeSelection([{ label: "filter", test: source }])
  if ("admits" in source && typeof source.admits === "function") return source
  const s = (source as { selection: ToolSelection | (() => ToolSelection) }).selection
  return typeof s === "function" ? s.call(source) : s
}

const hidden = (request: CallToolRequest, cache: ListingCache): Promise<never> =>
  Promise.reject(
    new ToolNotFound({
      toolId: request.name,
      suggestions: suggestToolIds(request.name, cache.peek(request.context)?.byId.keys() ?? []),
    }),
  )

/**
 * Hides the tools a selection does not admit, in listings and calls.
 *
 * @example
 * ```ts
 * const visible = capabilityFilter(toolset("public").namespace("github").readOnly())
 * ```
 * @since 0.1.0
 */
export const capabilityFilter = (source: CapabilitySource, options: ListingOptions = {}): Middleware => {
  const selection = selectionOf(source)
  const listing = resolveListing(options, "capabilities")
  const admits = memoizeByTool((tool) => selection.admits(tool))
  return (next) =>
    listingService({
      next,
      purpose: "compose/capabilities/tools/list",
      listing,
      derive: (inner) => inner.filter(admits),
      call: (request, cache) => {
        const found = lookup(cache, request.context, request.name)
        if (found instanceof Promise)
          return found.then((tool) => (tool ? next.callTool(request) : hidden(request, cache)))
        return found ? next.callTool(request) : hidden(request, cache)
      },
    })
}
