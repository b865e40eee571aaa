/**
 * Which local tools need approval. The default, `"auto"`, requires approval for every tool except those
 * annotated `readOnlyHint: true` (and not `destructiveHint: true`): in-process and configured subprocess
 * tools are written by the application itself, so their annotations are trusted; anything that may
 * change the world still needs an approver.
 *
 * @since 0.1.0
 */
import type { Tool } from "@toolplane/foundation"

/**
 * `"auto"` (default): required unless the tool is annotated read-only and not destructive;
 * `"always"`: every tool; `"never"`: no tool; or a function deciding per tool.
 *
 * @since 0.1.0
 */
export type ApprovalPolicy = "auto" | "always" | "never" | ((tool: Tool) => boolean)

/**
 * Whether `tool` requires approval under `policy`.
 *
 * @since 0.1.0
 */
export const needsApproval = (tool: Tool, policy: ApprovalPolicy = "auto"): boolean => {
  if (policy === "always") return true
  if (policy === "never") return false
  if (policy === "auto")
    return !(tool.annotations?.readOnlyHint === true && tool.annotations?.destructiveHint !== true)
  return policy(tool) !== false
}
