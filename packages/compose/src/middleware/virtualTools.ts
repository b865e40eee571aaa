/**
 * Virtual tools: in-process tool definitions (for example skills made into tools with `skillTool`)
 * served by the gateway itself, listed next to the inner service's tools.
 *
 * @since 0.1.0
 */
import {
  ConfigError,
  type Middleware,
  type Tool,
  type ToolDefinition,
  toContext,
  toolOf,
} from "@toolplane/foundation"
import { type ListingOptions, listingService, resolveListing } from "../internal/listing.js"

/**
 * Serves `definitions` in front of the inner service: they are listed (sorted in with the inner tools)
 * and calls to them run `definition.invoke`; every other call passes through. A definition whose id the
 * inner service also lists shadows it.
 *
 * @since 0.1.0
 */
export const virtualTools = (
  definitions: readonly ToolDefinition<any>[],
  options: ListingOptions = {},
): Middleware => {
  const byName = new Map<string, ToolDefinition<any>>()
  definitions.forEach((d, i) => {
    if (typeof d?.invoke !== "function")
      throw new ConfigError({
        path: `tools[${i}]`,
        reason: "expected a tool definition (made with defineTool or skillTool)",
      })
    if (byName.has(d.id))
      throw new ConfigError({ path: `tools[${i}].id`, reason: `duplicate tool "${d.id}"` })
    byName.set(d.id, d)
  })
  const listed: Tool[] = [...byName.values()].map(toolOf)
  const listing = resolveListing(options, "tools")
  return (next) =>
    listingService({
      next,
      purpose: "compose/virtual/tools/list",
      listing,
      derive: (inner) => [...inner.filter((t) => !byName.has(t.id)), ...listed],
      call: (request) => {
        const definition = byName.get(request.name)
        if (!definition) return next.callTool(request)
        return definition.invoke(request.arguments ?? {}, toContext(request.context))
      },
    })
}
