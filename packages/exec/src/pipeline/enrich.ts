/**
 * Step 3, enrichers: in registration order, `transformArgs` rewrites a call's arguments before it runs
 * and `enrichSchema` rewrites tools when they are listed. An enricher applies to a tool when it declares
 * no categories, declares `"*"`, or declares the tool's category. When some enricher declares categories,
 * a tool whose category none of them supports is hidden (neither listed nor callable); tools without a
 * category are never hidden.
 *
 * @since 0.1.0
 */
import type { Enricher, Tool } from "@toolplane/foundation"

/**
 * Whether `enricher` applies to `tool`.
 *
 * @since 0.1.0
 */
export const enricherApplies = (enricher: Enricher, tool: Tool): boolean => {
  const categories = enricher.supportedCategories()
  if (categories.length === 0 || categories.includes("*")) return true
  return tool.category !== undefined && categories.includes(tool.category)
}

/**
 * Whether category filtering is in use: some enricher declares at least one category.
 *
 * @since 0.1.0
 */
export const categoriesInUse = (enrichers: readonly Enricher[]): boolean =>
  enrichers.some((e) => e.supportedCategories().length > 0)

/**
 * Whether a tool stays visible under category filtering.
 *
 * @since 0.1.0
 */
export const isVisible = (tool: Tool, enrichers: readonly Enricher[], filtering: boolean): boolean => {
  if (!filtering || tool.category === undefined) return true
  return enrichers.some((e) => {
    const categories = e.supportedCategories()
    return categories.includes("*") || categories.includes(tool.category!)
  })
}

/**
 * The tool as listed: every applicable enricher's `enrichSchema`, in order.
 *
 * @since 0.1.0
 */
export const enrichTool = (tool: Tool, applicable: readonly Enricher[]): Tool => {
  let out = tool
  for (const enricher of applicable) out = enricher.enrichSchema(out)
  return out
}

/**
 * The arguments after every applicable enricher's `transformArgs`, in order.
 *
 * @since 0.1.0
 */
export const transformArgs = (
  toolId: string,
  args: Readonly<Record<string, unknown>>,
  applicable: readonly Enricher[],
): Readonly<Record<string, unknown>> => {
  let out = args
  for (let i = 0; i < applicable.length; i++) out = applicable[i]!.transformArgs(toolId, out)
  return out
}
