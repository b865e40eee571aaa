/**
 * A selection: the filters (AND-composed, in order) and the policies (first decision wins) of a
 * toolset, as one reusable predicate. The capability-filtering middleware applies a selection to a live
 * tool service; a toolset applies it once to its sources.
 *
 * @since 0.1.0
 */
import type { Tool } from "@toolplane/foundation"
import type { ToolFilter } from "./filters.js"
import { evaluatePolicies, type Policy } from "./policies.js"

/**
 * A filter with a label used in explanations.
 *
 * @since 0.1.0
 */
export interface LabeledFilter {
  readonly label: string
  readonly test: ToolFilter
}

/**
 * Why a tool is in or out.
 *
 * @since 0.1.0
 */
export interface SelectionVerdict {
  readonly admitted: boolean
  /** The filter or policy that decided, e.g. `filter #2 tags(any: admin)` or `policy denyTags(admin)`. */
  readonly decidedBy?: string
}

/**
 * Filters then policies, as one predicate.
 *
 * @since 0.1.0
 */
export interface ToolSelection {
  readonly filters: readonly LabeledFilter[]
  readonly policies: readonly Policy[]
  /** Whether the tool passes every filter and the policies allow it. */
  admits(tool: Tool): boolean
  /** Like {@link ToolSelection.admits}, saying which filter or policy decided. */
  explain(tool: Tool): SelectionVerdict
}

/**
 * Makes a selection from filters and policies (both frozen copies).
 *
 * @since 0.1.0
 */
export const makeSelection = (
  filters: readonly (LabeledFilter | ToolFilter)[] = [],
  policies: readonly Policy[] = [],
): ToolSelection => {
  const labeled = Object.freeze(
    filters.map(
      (f, i): LabeledFilter => (typeof f === "function" ? { label: `filter #${i + 1}`, test: f } : f),
    ),
  )
  const frozenPolicies = Object.freeze([...policies])
  const explain = (tool: Tool): SelectionVerdict => {
    for (const [i, f] of labeled.entries())
      if (!f.test(tool)) return { admitted: false, decidedBy: `filter #${i + 1} ${f.label}` }
    const verdict = evaluatePolicies(frozenPolicies, tool)
    return verdict.by === undefined
      ? { admitted: verdict.allowed }
      : { admitted: verdict.allowed, decidedBy: `policy ${verdict.by}` }
  }
  return Object.freeze({
    filters: labeled,
    policies: frozenPolicies,
    admits: (tool: Tool) => {
      for (const f of labeled) if (!f.test(tool)) return false
      return evaluatePolicies(frozenPolicies, tool).allowed
    },
    explain,
  })
}
