/**
 * The approval gate across the AI SDK: tools that need approval ask through the SDK's own approval flow
 * (`tool-approval-request` parts, answered with `tool-approval-response`), and only a call the SDK let
 * through reaches the runner with a proof the runner's approver recognises.
 *
 * @since 0.1.0
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import type { Tool } from "@toolplane/foundation"

/**
 * The metadata key under which a call executed by the AI SDK carries its approval proof.
 *
 * @since 0.1.0
 */
export const AI_SDK_APPROVAL_KEY = "toolplane.dev/ai-sdk-approval"

/**
 * How a call the SDK executes was let through: `"user"` (it needed approval and the SDK's approval
 * flow approved it) or `"policy"` (`needsApproval` said the tool needs none).
 *
 * @since 0.1.0
 */
export type AISDKApprovalVia = "user" | "policy"

/**
 * What the runner's approver is asked (structurally the exec package's `ApprovalRequest`).
 *
 * @since 0.1.0
 */
export interface AISDKApprovalRequest {
  readonly toolId: string
  readonly context: { readonly metadata: Readonly<Record<string, unknown>> }
}

/**
 * An approver's answer (structurally the exec package's `ApprovalDecision`).
 *
 * @since 0.1.0
 */
export type AISDKApprovalDecision = boolean | { readonly approved: boolean; readonly reason?: string }

/**
 * The approval link between {@link toAISDKTools} and a runner: pass `approver` to `createRunner` and the
 * link itself to `toAISDKTools({ approval })`.
 *
 * @since 0.1.0
 */
export interface AISDKApproval {
  /** Which tools ask the user through the SDK's approval flow. */
  readonly needsApproval: (tool: Tool) => boolean | Promise<boolean>
  /**
   * An approver for the runner (assignable to the exec package's `Approver`): approves a call that
   * carries this link's proof, and asks `otherwise` for every other call.
   */
  readonly approver: {
    approve(request: AISDKApprovalRequest): AISDKApprovalDecision | Promise<AISDKApprovalDecision>
  }
  /** The metadata a call executed by the SDK carries (used by {@link toAISDKTools}). */
  proof(via: AISDKApprovalVia, approvalId?: string): Readonly<Record<string, unknown>>
}

/**
 * Options of {@link aiSdkApproval}.
 *
 * @since 0.1.0
 */
export interface AISDKApprovalOptions {
  /** Which tools ask the user. Default: every tool (approval by default). */
  readonly needsApproval?: (tool: Tool) => boolean | Promise<boolean>
  /** Decides calls that did not come through the SDK. Default: refuse. */
  readonly otherwise?: (
    request: AISDKApprovalRequest,
  ) => AISDKApprovalDecision | Promise<AISDKApprovalDecision>
}

/**
 * Makes the approval link. The proof is a random per-link token kept in memory: a caller that did not
 * go through this link's tools (another client of the same runner, a forged metadata entry) cannot
 * produce it.
 *
 * @example
 * ```ts
 * const approval = aiSdkApproval({ needsApproval: (tool) => tool.annotations?.readOnlyHint !== true })
 * // the runner: createRunner({ backends, approver: approval.approver }) (@toolplane/exec)
 * const { tools, toolApproval } = await toAISDKTools(runner, { approval })
 * // generateText({ model, tools, toolApproval, messages }): its content holds "tool-approval-request"
 * // parts for tools that ask; answer them with
 * // { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] }
 * ```
 * @since 0.1.0
 */
export const aiSdkApproval = (options: AISDKApprovalOptions = {}): AISDKApproval => {
  const token = randomBytes(24).toString("base64url")
  const expected = Buffer.from(token)
  const otherwise =
    options.otherwise ??
    (() => ({ approved: false, reason: "the call did not come through the AI SDK's approval flow" }))
  return {
    needsApproval: options.needsApproval ?? (() => true),
    approver: {
      approve: (request) => {
        const proof = request.context.metadata[AI_SDK_APPROVAL_KEY] as { token?: unknown } | undefined
        const given = typeof proof?.token === "string" ? Buffer.from(proof.token) : undefined
        if (given !== undefined && given.length === expected.length && timingSafeEqual(given, expected))
          return true
        return otherwise(request)
      },
    },
    proof: (via, approvalId) => ({
      [AI_SDK_APPROVAL_KEY]: { token, via, ...(approvalId !== undefined ? { approvalId } : {}) },
    }),
  }
}
