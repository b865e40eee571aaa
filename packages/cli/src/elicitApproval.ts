/**
 * Approval through the user: the approver of a gateway, per backend (`approval = "elicit" | "deny" |
 * "allow"`). With `"elicit"`, a call that needs approval is shown to the calling user through MCP
 * elicitation (tool, backend, arguments) and runs only when they explicitly accept; a decline or cancel
 * is `ApprovalDenied`, and a client that did not declare elicitation gets `ApprovalRequired`.
 *
 * A 2026-07-28 (stateless) client is asked the same question as a multi round-trip input request: the
 * call answers `InputRequiredResult` with the input `approval` and a `requestState` the gateway signed
 * (bound to the caller, the tool and the arguments); the tool runs only when the client's retry brings
 * that state and an accepting answer, on whichever replica it lands. A modern client that did not
 * declare elicitation gets `-32021 MissingRequiredClientCapability`.
 *
 * @since 0.1.0
 */
import type { Approver } from "@toolplane/exec"
import { ApprovalRequired } from "@toolplane/foundation"
import { INPUT_KEY_META_KEY } from "@toolplane/plugin-mcp"

/**
 * A backend's approval mode.
 *
 * @since 0.1.0
 */
export type ApprovalMode = "elicit" | "deny" | "allow"

const preview = (args: Readonly<Record<string, unknown>>): string => {
  const json = JSON.stringify(args, null, 2) ?? "{}"
  return json.length > 2000 ? `${json.slice(0, 2000)}\n… (${json.length} characters)` : json
}

/**
 * The approver for backends' approval modes; a backend without a mode gets `ApprovalRequired`.
 *
 * @since 0.1.0
 */
export const gatewayApprover = (modes: ReadonlyMap<string, ApprovalMode>): Approver => ({
  approve: async ({ toolId, backend, arguments: args, context }) => {
    const mode = modes.get(backend)
    if (mode === "allow") return true
    if (mode === "deny")
      return { approved: false, reason: `backend "${backend}" is configured with approval = "deny"` }
    const elicit = context.client.elicitInput
    if (mode !== "elicit" || elicit === undefined) throw new ApprovalRequired({ toolId, backend })
    const answer = (await elicit({
      message: `Allow the tool "${toolId}" (backend "${backend}") to run with these arguments?\n${preview(args)}`,
      requestedSchema: {
        type: "object",
        properties: {
          approve: {
            type: "boolean",
            title: "Run this call",
            description: "Run the tool once",
            default: true,
          },
        },
        required: ["approve"],
      },
      // the input's name when a stateless client is asked through InputRequiredResult
      _meta: { [INPUT_KEY_META_KEY]: "approval" },
    })) as { action?: string; content?: { approve?: unknown } }
    if (answer.action === "accept" && answer.content?.approve !== false) return true
    return {
      approved: false,
      reason:
        answer.action === "accept"
          ? "the user did not approve the call"
          : `the user ${answer.action === "decline" ? "declined" : "cancelled"} the approval request`,
    }
  },
})
