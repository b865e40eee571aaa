/**
 * Which tools of a gateway a call may wait for approval on, or be refused for lack of it: what code mode
 * marks `@needsApproval` in the declaration it serves. The runner's approval gate applies when the
 * tool's backend says it requires approval (a failing answer counts as "required", as in the runner);
 * the gateway's approver then lets the call through at once only for a backend configured with
 * `approval = "allow"`. Every other gated call waits for the user (`"elicit"`) or is refused (`"deny"`,
 * or no approval mode: `ApprovalRequired`). Aliases are judged by their original tool; a composite tool
 * needs approval when any of its targets does.
 *
 * @since 0.1.0
 */
import type { ToolRunner } from "@toolplane/exec"
import type { ApprovalMode } from "./elicitApproval.js"

/**
 * What {@link approvalMarks} needs of a gateway.
 *
 * @since 0.1.0
 */
export interface ApprovalMarksOptions {
  readonly runner: ToolRunner
  /** Approval modes by backend name (`approval = ...` of each backend). */
  readonly modes: ReadonlyMap<string, ApprovalMode>
  /** `{ "original/id": "alias/id" }`. */
  readonly aliases: Readonly<Record<string, string>>
  /** Composite tools: ids (bare names are in the `composite` namespace) and their targets. */
  readonly composites: readonly { readonly name: string; readonly tools: readonly string[] }[]
}

/**
 * Answers, for a tool id as the layer under code mode lists it, whether a call of it goes through the
 * approver and may wait or be refused.
 *
 * @since 0.1.0
 */
export const approvalMarks = (options: ApprovalMarksOptions): ((toolId: string) => Promise<boolean>) => {
  const toOriginal = new Map(Object.entries(options.aliases).map(([original, alias]) => [alias, original]))
  const composites = new Map(
    options.composites.map((c) => [c.name.includes("/") ? c.name : `composite/${c.name}`, c.tools] as const),
  )
  const direct = async (toolId: string): Promise<boolean> => {
    const id = toOriginal.get(toolId) ?? toolId
    const registered = options.runner.registry.resolve(id)
    if (registered === undefined) return false
    if (options.modes.get(registered.backend.name) === "allow") return false
    try {
      return (await registered.backend.requiresApproval(id)) !== false
    } catch {
      return true
    }
  }
  return async (toolId) => {
    const targets = composites.get(toolId)
    if (targets === undefined) return direct(toolId)
    return (await Promise.all(targets.map(direct))).some(Boolean)
  }
}
