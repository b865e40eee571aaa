/**
 * The typed error a caller gets from a per-caller backend it has not consented to (or whose consent was
 * revoked or expired): which backend, and what to run. It concerns that caller only; the backend stays
 * available to everyone else.
 *
 * @since 0.2.0
 */
import { registerToolErrorDecoder, TaggedToolError } from "@toolplane/foundation"

declare module "@toolplane/foundation" {
  interface ToolErrorExtensions {
    readonly UpstreamConsentRequired: UpstreamConsentRequired
  }
}

/**
 * The caller has no usable upstream token for `backend`: `reason` says why (never consented, refused,
 * refresh failed, no authenticated caller) and `remedy` what to run or open. Never holds a token.
 *
 * @example
 * ```ts
 * try {
 *   await service.callTool({ name: "crm/search", arguments: { q: "acme" } })
 * } catch (error) {
 *   if (error instanceof UpstreamConsentRequired) console.error(error.remedy)
 * }
 * ```
 * @since 0.2.0
 */
export class UpstreamConsentRequired extends TaggedToolError("UpstreamConsentRequired")<{
  readonly backend: string
  readonly toolId?: string | undefined
  readonly reason: string
  readonly remedy: string
}> {
  readonly code = "UPSTREAM_CONSENT_REQUIRED"
  override get message(): string {
    const tool = this.toolId ? ` (calling "${this.toolId}")` : ""
    return `Backend "${this.backend}" needs the caller's own consent${tool}: ${this.reason}; ${this.remedy}`
  }
}

try {
  registerToolErrorDecoder("UpstreamConsentRequired", ({ backend, toolId, reason, remedy }) =>
    typeof backend === "string" && typeof reason === "string" && typeof remedy === "string"
      ? new UpstreamConsentRequired({
          backend,
          reason,
          remedy,
          ...(typeof toolId === "string" ? { toolId } : {}),
        })
      : undefined,
  )
} catch {
  // A second copy of this module (source and build loaded side by side): the first decoder serves.
}
