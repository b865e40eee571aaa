/**
 * The gateway stack: every gateway middleware assembled in the documented order. Innermost (closest to
 * the runner) first; a call meets them in the reverse order, a listing is transformed in this order:
 *
 * 1. `tools`             — virtual tools served in-process (e.g. skills made tools), listed like backend tools
 * 2. `validation`        — argument size cap and schema check against the listed schema
 * 3. `argumentOverrides` — injected / defaulted / renamed parameters (rules keyed by original ids)
 * 4. `capabilityFilter`  — a toolset's filters and policies; hidden tools cannot be called
 * 5. `aliasing`          — two-way renames
 * 6. `composite`         — composite names are not alias-rewritten, their targets go through every
 *                          layer above (5 → 1)
 * 7. `searchMode`        — only when given, and then outermost: it replaces the listing (the meta-tools
 *                          are the whole listing) and searches and calls the composed toolset 1–6, i.e.
 *                          exactly what a client could call (aliases and composites, never a hidden id)
 *
 * Layers 2, 4, 5 and 6 keep the seed's documented order (validation → capability filtering → aliasing →
 * composite); 1 and 3 sit where they keep that order's guarantees: virtual tools are filtered and
 * validated like any tool, and overrides rewrite arguments before validation checks them against the
 * tool's real schema. The seed placed search mode between filtering and aliasing; there it indexed
 * original ids (so `call_tool` ran hidden originals and failed on aliases) and composites were listed
 * next to the meta-tools, hence its place around the whole toolset.
 *
 * With `changes`, every cached listing of the stack (and the search mode) is dropped as soon as the
 * inner tool list changes.
 *
 * @since 0.1.0
 */
import {
  applyMiddleware,
  type CursorCodec,
  type Middleware,
  type ToolDefinition,
  type ToolService,
} from "@toolplane/foundation"
import { fullListing, type ListingOptions } from "./internal/listing.js"
import { type AliasConfig, aliasing, aliasTable, checkAliases } from "./middleware/alias.js"
import {
  type ArgumentOverrides,
  argumentOverrides,
  checkArgumentOverrides,
} from "./middleware/argumentOverrides.js"
import { type CapabilitySource, capabilityFilter } from "./middleware/capabilityFilter.js"
import {
  type CompositeToolDefinition,
  checkCompositeTargets,
  compositeTools,
} from "./middleware/composite.js"
import { searchModeFilter } from "./middleware/searchMode.js"
import { requestValidation, type ValidationOptions } from "./middleware/validation.js"
import { virtualTools } from "./middleware/virtualTools.js"

/**
 * The layers, innermost first.
 *
 * @since 0.1.0
 */
export const GATEWAY_ORDER = [
  "tools",
  "validation",
  "argumentOverrides",
  "capabilityFilter",
  "aliasing",
  "composite",
  "searchMode",
] as const

/**
 * A layer name.
 *
 * @since 0.1.0
 */
export type GatewayLayerName = (typeof GATEWAY_ORDER)[number]

/**
 * One configured layer.
 *
 * @since 0.1.0
 */
export interface GatewayLayer {
  readonly name: GatewayLayerName
  readonly middleware: Middleware
}

/**
 * Options of {@link gatewayStack}. Every layer is optional except validation, which is on unless set to
 * `false`.
 *
 * @since 0.1.0
 */
export interface GatewayOptions extends ListingOptions {
  /** In-process tools (e.g. from `skillTool`). */
  readonly tools?: readonly ToolDefinition<any>[]
  readonly validation?: ValidationOptions | false
  readonly argumentOverrides?: ArgumentOverrides
  /** Which tools are visible and callable: a toolset, builder, selection or filter. */
  readonly capabilities?: CapabilitySource
  /**
   * Discovery's search mode, as a middleware (see `searchModeView` for a simple one). Outermost: it
   * replaces the listing and searches the composed toolset (aliases and composites included).
   */
  readonly searchMode?: Middleware
  readonly aliases?: AliasConfig
  readonly composites?: readonly CompositeToolDefinition[]
  /** Namespace of composite tools defined with a bare name. Default `composite`. */
  readonly compositeNamespace?: string
}

const listingOf = (options: GatewayOptions): ListingOptions => ({
  ...(options.codec ? { codec: options.codec as CursorCodec } : {}),
  ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
  ...(options.listingTtlMs !== undefined ? { listingTtlMs: options.listingTtlMs } : {}),
  ...(options.changes !== undefined ? { changes: options.changes } : {}),
})

/**
 * The configured layers, innermost first, without the build-time checks of {@link gatewayStack}.
 * Useful to inspect or instrument the stack; `applyMiddleware(inner, ...layers.map((l) => l.middleware))`
 * is the stack.
 *
 * @since 0.1.0
 */
export const gatewayLayers = (options: GatewayOptions = {}): GatewayLayer[] => {
  const listing = listingOf(options)
  const layers: GatewayLayer[] = []
  if (options.tools && options.tools.length > 0)
    layers.push({ name: "tools", middleware: virtualTools(options.tools, listing) })
  if (options.validation !== false)
    layers.push({
      name: "validation",
      middleware: requestValidation({
        ...(options.listingTtlMs !== undefined ? { listingTtlMs: options.listingTtlMs } : {}),
        ...(options.changes !== undefined ? { changes: options.changes } : {}),
        ...(options.validation ?? {}),
      }),
    })
  if (options.argumentOverrides)
    layers.push({
      name: "argumentOverrides",
      middleware: argumentOverrides(options.argumentOverrides, listing),
    })
  if (options.capabilities)
    layers.push({ name: "capabilityFilter", middleware: capabilityFilter(options.capabilities, listing) })
  if (options.aliases) layers.push({ name: "aliasing", middleware: aliasing(options.aliases, listing) })
  if (options.composites && options.composites.length > 0)
    layers.push({
      name: "composite",
      middleware: compositeTools(options.composites, {
        ...listing,
        ...(options.compositeNamespace !== undefined ? { namespace: options.compositeNamespace } : {}),
      }),
    })
  if (options.searchMode)
    layers.push({
      name: "searchMode",
      middleware: searchModeFilter(
        options.searchMode,
        options.changes !== undefined ? { changes: options.changes } : {},
      ),
    })
  return layers
}

/**
 * Builds the gateway over `inner` (the runner, as a foundation `ToolService`) and checks the
 * configuration against what `inner` serves: argument overrides name existing tools and parameters,
 * aliased tools exist and aliases collide with nothing, every composite target exists under the name
 * the composite layer will call (after filtering and aliasing; search mode sits above composite and
 * plays no part in this check). Fails with `ConfigError` naming the offending entry.
 *
 * @example
 * ```ts
 * const gateway = await gatewayStack(runner, {
 *   capabilities: toolset("public").hideDestructive(),
 *   aliases: { "github/create_issue": "gh/new_issue" },
 *   composites: [{ name: "search_all", tools: ["github/search", "docs/search"] }],
 *   changes: (listener) => runner.registry.onChange(listener),
 * })
 * ```
 * @since 0.1.0
 */
export const gatewayStack = async (
  inner: ToolService,
  options: GatewayOptions = {},
): Promise<ToolService> => {
  const layers = gatewayLayers(options)
  const checking = options.argumentOverrides || options.aliases || options.composites?.length
  if (checking) {
    // The checks read the listing once, through throw-away layers: uncached and unsubscribed, so they
    // leave nothing registered with `changes`. Validation and search mode do not change what they see.
    const { changes: _changes, searchMode: _searchMode, ...rest } = options
    const probes = gatewayLayers({ ...rest, listingTtlMs: 0, validation: false })
    const below = (stop: GatewayLayerName): ToolService =>
      applyMiddleware(
        inner,
        ...probes
          .filter((l) => GATEWAY_ORDER.indexOf(l.name) < GATEWAY_ORDER.indexOf(stop))
          .map((l) => l.middleware),
      )
    const served = await fullListing(below("validation"), undefined)
    if (options.argumentOverrides) checkArgumentOverrides(options.argumentOverrides, served)
    if (options.aliases)
      checkAliases(aliasTable(options.aliases), await fullListing(below("aliasing"), undefined))
    if (options.composites?.length) {
      const visible = await fullListing(below("composite"), undefined)
      const servedIds = new Set(served.map((t) => t.id))
      const table = options.aliases ? aliasTable(options.aliases) : undefined
      checkCompositeTargets(options.composites, visible, {
        ...(options.compositeNamespace !== undefined ? { namespace: options.compositeNamespace } : {}),
        hint: (id) => {
          const alias = table?.toAlias.get(id)
          if (alias !== undefined) return `it is aliased; name it "${alias}"`
          if (servedIds.has(id)) return "the inner service has it, but capability filtering hides it"
          return undefined
        },
      })
    }
  }
  return applyMiddleware(inner, ...layers.map((l) => l.middleware))
}
