/**
 * Approvals held open in this process: a call of an `approval = "elicit"` backend waiting while its
 * 2025-era client's user answers `elicitation/create`. The console lists them and an operator may
 * reject one (the call then ends `ApprovalDenied` at once; the client's open question is left to it and
 * its answer ignored). An operator cannot approve in the user's place: `"elicit"` names the calling user
 * as the approver. A 2026-07-28 client's question holds no call (it is a multi round-trip request, see
 * `McpPendingInputs`): its approver stops with the input request at once and is not listed here.
 *
 * @since 0.2.0
 */
import { randomUUID } from "node:crypto"
import type { ApprovalDecision, Approver } from "@toolplane/exec"
import type { GatewayObserver } from "../gateway.js"

/**
 * One held approval.
 *
 * @since 0.2.0
 */
export interface HeldApproval {
  readonly id: string
  readonly toolId: string
  readonly backend: string
  /** The caller as the gateway knows it (`callerId` of the call's context). */
  readonly caller?: string
  /** The validated arguments, as the approval question shows them. */
  readonly arguments: Readonly<Record<string, unknown>>
  /** When the question was asked, ms since the epoch. */
  readonly since: number
}

/**
 * The held approvals of a gateway process.
 *
 * @since 0.2.0
 */
export interface HeldApprovals {
  /** Adds the holding wrapper to an observer's approver (keeping what it wraps already). */
  observe(observer: GatewayObserver | undefined): GatewayObserver
  /** The approvals waiting now, oldest first. */
  list(): readonly HeldApproval[]
  /** Ends a held approval as denied with `reason`; `false` when it is no longer waiting. */
  reject(id: string, reason: string): boolean
}

/**
 * A registry of held approvals.
 *
 * @since 0.2.0
 */
export const heldApprovals = (): HeldApprovals => {
  const held = new Map<string, { entry: HeldApproval; deny: (decision: ApprovalDecision) => void }>()

  const wrap = (inner: Approver, mode: (backend: string) => string | undefined): Approver => ({
    approve: async (request) => {
      if (mode(request.backend) !== "elicit") return inner.approve(request)
      const id = randomUUID()
      let deny!: (decision: ApprovalDecision) => void
      const operator = new Promise<ApprovalDecision>((resolve) => {
        deny = resolve
      })
      held.set(id, {
        entry: {
          id,
          toolId: request.toolId,
          backend: request.backend,
          ...(request.context.callerId !== undefined ? { caller: request.context.callerId } : {}),
          arguments: request.arguments,
          since: Date.now(),
        },
        deny,
      })
      try {
        return await Promise.race([Promise.resolve(inner.approve(request)), operator])
      } finally {
        held.delete(id)
      }
    },
  })

  return {
    observe: (observer) => {
      const outer = observer?.approver
      return {
        ...observer,
        approver: (approver, mode) => {
          const wrapped = wrap(approver, mode)
          return outer ? outer(wrapped, mode) : wrapped
        },
      }
    },
    list: () => [...held.values()].map((h) => h.entry),
    reject: (id, reason) => {
      const found = held.get(id)
      if (found === undefined) return false
      held.delete(id)
      found.deny({ approved: false, reason })
      return true
    },
  }
}
