/**
 * Aliasing: two-way renames. The listing shows a tool under its alias; a call to the alias is rewritten
 * to the original id; the original id itself is hidden while aliased (calling it is `ToolNotFound`,
 * suggesting the alias). Renames are simultaneous, so swaps (`a → b`, `b → a`) work.
 *
 * @since 0.1.0
 */
import {
  ConfigError,
  isToolError,
  isToolId,
  type Middleware,
  renameTool,
  suggestToolIds,
  type Tool,
  ToolNotFound,
  toolErrorFromJson,
  toolErrorToJson,
} from "@toolplane/foundation"
import { type ListingOptions, listingService, resolveListing } from "../internal/listing.js"
import { memoizeByTool } from "../internal/memo.js"

/**
 * Aliases: `{ "original/id": "alias/id" }`, or a list of `{ tool, alias }`.
 *
 * @since 0.1.0
 */
export type AliasConfig =
  | Readonly<Record<string, string>>
  | readonly { readonly tool: string; readonly alias: string }[]

/**
 * Validated aliases in both directions.
 *
 * @since 0.1.0
 */
export interface AliasTable {
  readonly toAlias: ReadonlyMap<string, string>
  readonly toOriginal: ReadonlyMap<string, string>
}

/**
 * Validates aliases: valid ids, no tool aliased twice, no alias shared by two tools, no alias equal to
 * its tool. Fails with `ConfigError` naming the entry.
 *
 * @since 0.1.0
 */
export const aliasTable = (config: AliasConfig): AliasTable => {
  const entries: [string, string, string][] = Array.isArray(config)
    ? config.map((e, i) => [e?.tool, e?.alias, `aliases[${i}]`])
    : Object.entries(config).map(([tool, alias]) => [tool, alias, `aliases[${JSON.stringify(tool)}]`])
  const toAlias = new Map<string, string>()
  const toOriginal = new Map<string, string>()
  for (const [tool, alias, path] of entries) {
    if (!isToolId(tool))
      throw new ConfigError({ path, reason: `${JSON.stringify(tool)} is not a "namespace/name" tool id` })
    if (!isToolId(alias))
      throw new ConfigError({
        path,
        reason: `alias ${JSON.stringify(alias)} is not a "namespace/name" tool id`,
      })
    if (tool === alias) throw new ConfigError({ path, reason: `"${tool}" is aliased to itself` })
    if (toAlias.has(tool))
      throw new ConfigError({ path, reason: `"${tool}" already has the alias "${toAlias.get(tool)}"` })
    if (toOriginal.has(alias))
      throw new ConfigError({ path, reason: `"${alias}" is already the alias of "${toOriginal.get(alias)}"` })
    toAlias.set(tool, alias)
    toOriginal.set(alias, tool)
  }
  return { toAlias, toOriginal }
}

/**
 * Checks aliases against the tools the alias layer will see: every aliased tool must exist, and an
 * alias may not collide with a tool that keeps its name. Fails with `ConfigError`.
 *
 * @since 0.1.0
 */
export const checkAliases = (config: AliasConfig | AliasTable, tools: readonly Tool[]): void => {
  const table =
    "toAlias" in config && config.toAlias instanceof Map
      ? (config as AliasTable)
      : aliasTable(config as AliasConfig)
  const ids = new Set(tools.map((t) => t.id))
  for (const [tool, alias] of table.toAlias) {
    const path = `aliases[${JSON.stringify(tool)}]`
    if (!ids.has(tool)) {
      const hint = suggestToolIds(tool, ids)
      throw new ConfigError({
        path,
        reason: `aliased tool "${tool}" does not exist (or is hidden by capability filtering)${hint.length ? `; did you mean ${hint.map((h) => `"${h}"`).join(", ")}?` : ""}`,
      })
    }
    if (ids.has(alias) && !table.toAlias.has(alias))
      throw new ConfigError({ path, reason: `alias "${alias}" collides with an existing tool of that name` })
  }
}

/** The same typed error, naming the alias the client called instead of the hidden original id. */
const asAlias = (error: unknown, original: string, alias: string): unknown => {
  if (!isToolError(error) || !("toolId" in error) || error.toolId !== original) return error
  return toolErrorFromJson({ ...toolErrorToJson(error), toolId: alias }) ?? error
}

/**
 * The aliasing middleware. At run time an alias that collides with a tool the inner service adds later
 * wins (the other tool is hidden); `gatewayStack` rejects such collisions when it is built.
 *
 * @example
 * ```ts
 * aliasing({ "github/create_issue": "gh/new_issue" })
 * ```
 * @since 0.1.0
 */
export const aliasing = (config: AliasConfig, options: ListingOptions = {}): Middleware => {
  const { toAlias, toOriginal } = aliasTable(config)
  const listing = resolveListing(options, "aliases")
  const renamed = memoizeByTool((tool) => renameTool(tool, toAlias.get(tool.id)!))
  const shown = (tool: Tool): Tool | undefined => {
    const alias = toAlias.get(tool.id)
    if (alias === undefined) return toOriginal.has(tool.id) ? undefined : tool
    return renamed(tool)
  }
  return (next) =>
    listingService({
      next,
      purpose: "compose/aliases/tools/list",
      listing,
      derive: (inner) => inner.flatMap((t) => shown(t) ?? []),
      call: (request) => {
        const original = toOriginal.get(request.name)
        if (original !== undefined)
          return next.callTool({ ...request, name: original }).catch((error: unknown) => {
            if (error instanceof ToolNotFound && error.toolId === original)
              throw new ToolNotFound({ toolId: request.name, suggestions: [] })
            throw asAlias(error, original, request.name)
          })
        const alias = toAlias.get(request.name)
        if (alias !== undefined)
          return Promise.reject(new ToolNotFound({ toolId: request.name, suggestions: [alias] }))
        return next.callTool(request).catch((error: unknown) => {
          // Suggestions must name what a client can call: aliases instead of the hidden originals.
          if (!(error instanceof ToolNotFound)) throw error
          const suggestions = error.suggestions.flatMap(
            (id) => toAlias.get(id) ?? (toOriginal.has(id) ? [] : id),
          )
          throw new ToolNotFound({ toolId: error.toolId, suggestions: [...new Set(suggestions)] })
        })
      },
    })
}
