/**
 * Step 4, the approval gate: when the backend says a tool requires approval (the default for every
 * backend), the call fails with {@link ApprovalRequired} unless an {@link Approver} approves it; a refusal
 * is {@link ApprovalDenied}. The backend's answer is asked once per tool and registry version.
 *
 * @since 0.1.0
 */
import { ApprovalDenied, ApprovalRequired, type ExecutionContext, isToolError } from "@toolplane/foundation"
import type { ApprovalDecision, Approver } from "../approver.js"
import type { ToolEntry } from "./resolve.js"

/**
 * Whether the tool requires approval (cached on the entry; a failing answer counts as "required").
 *
 * @since 0.1.0
 */
export const requiresApproval = async (entry: ToolEntry): Promise<boolean> => {
  if (entry.approval === undefined) {
    let required = true
    try {
      required = (await entry.backend.requiresApproval(entry.id)) !== false
    } catch {
      required = true
    }
    entry.approval = required
  }
  return entry.approval
}

/**
 * Lets the call through or fails it. Call only when `entry.approval !== false`.
 *
 * @since 0.1.0
 */
export const approvalGate = async (
  entry: ToolEntry,
  approver: Approver | undefined,
  args: Readonly<Record<string, unknown>>,
  context: ExecutionContext,
): Promise<void> => {
  if (!(await requiresApproval(entry))) return
  if (approver === undefined) throw new ApprovalRequired({ toolId: entry.id, backend: entry.backendName })
  let decision: ApprovalDecision
  try {
    decision = await approver.approve({
      toolId: entry.id,
      tool: entry.tool,
      backend: entry.backendName,
      arguments: args,
      context,
    })
  } catch (error) {
    // An approver that cannot ask anyone (e.g. a client without elicitation) answers ApprovalRequired.
    if (isToolError(error) && (error._tag === "ApprovalRequired" || error._tag === "ApprovalDenied"))
      throw error
    throw new ApprovalDenied({
      toolId: entry.id,
      reason: `approver failed: ${(error as Error)?.message ?? String(error)}`,
    })
  }
  if (decision === true) return
  if (typeof decision === "object" && decision !== null && decision.approved === true) return
  throw new ApprovalDenied({
    toolId: entry.id,
    reason: typeof decision === "object" && decision !== null ? decision.reason : undefined,
  })
}
