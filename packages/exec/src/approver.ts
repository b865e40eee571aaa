/**
 * Approvers: who decides whether a tool that requires approval may run. The runner asks only for tools
 * whose backend says they require approval; without an approver such calls fail with
 * {@link ApprovalRequired}, and a refusal fails them with {@link ApprovalDenied}.
 *
 * @since 0.1.0
 */
import type { ExecutionContext, Tool } from "@toolplane/foundation"
import { Context, Effect, Layer } from "effect"

/**
 * What an approver is asked.
 *
 * @since 0.1.0
 */
export interface ApprovalRequest {
  readonly toolId: string
  readonly tool: Tool
  /** Name of the backend serving the tool. */
  readonly backend: string
  /** The validated (and enriched) arguments the tool would receive. */
  readonly arguments: Readonly<Record<string, unknown>>
  readonly context: ExecutionContext
}

/**
 * An approver's answer: `true` / `false`, or an object with a reason shown in {@link ApprovalDenied}.
 *
 * @since 0.1.0
 */
export type ApprovalDecision = boolean | { readonly approved: boolean; readonly reason?: string }

/**
 * The approver contract, plain form. `approve` may answer synchronously.
 *
 * @since 0.1.0
 */
export interface Approver {
  approve(request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision>
}

/**
 * An approver that asks a function (for example a UI prompt).
 *
 * @example
 * ```ts
 * const approver = approveWith(async ({ toolId, arguments: args }) => confirm(`${toolId} ${JSON.stringify(args)}?`))
 * ```
 * @since 0.1.0
 */
export const approveWith = (
  decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
): Approver => ({ approve: decide })

/**
 * An approver that approves exactly the listed tools. An entry is a tool id, or `namespace/*` for every
 * tool of a namespace.
 *
 * @example
 * ```ts
 * const approver = allowList(["fs/read_file", "github/*"])
 * ```
 * @since 0.1.0
 */
export const allowList = (patterns: Iterable<string>): Approver => {
  const exact = new Set<string>()
  const namespaces = new Set<string>()
  for (const p of patterns) {
    if (p.endsWith("/*")) namespaces.add(p.slice(0, -2))
    else exact.add(p)
  }
  return {
    approve: ({ toolId }) => {
      if (exact.has(toolId) || namespaces.has(toolId.slice(0, toolId.indexOf("/")))) return true
      return { approved: false, reason: "not on the allow-list" }
    },
  }
}

/**
 * An approver that refuses every call.
 *
 * @since 0.1.0
 */
export const approveNone = (reason = "all calls requiring approval are denied"): Approver => ({
  approve: () => ({ approved: false, reason }),
})

/**
 * An approver that approves every call. Use only where every backend is trusted (tests, sandboxes).
 *
 * @since 0.1.0
 */
export const approveAll = (): Approver => ({ approve: () => true })

/**
 * The approver contract, Effect form, and its Context tag: the runner Layer uses the approver in
 * context when its options give none (`toolRunnerLayer(options).pipe(Layer.provide(approverLayer(a)))`).
 *
 * @since 0.1.0
 */
export interface EffectApprover {
  approve(request: ApprovalRequest): Effect.Effect<ApprovalDecision>
}

/**
 * The {@link EffectApprover} tag.
 *
 * @since 0.1.0
 */
export const EffectApprover: Context.Service<EffectApprover, EffectApprover> =
  Context.Service<EffectApprover>("@toolplane/exec/EffectApprover")

/**
 * A Layer providing {@link EffectApprover}, from an approver in either form.
 *
 * @since 0.1.0
 */
export const approverLayer = (approver: Approver | EffectApprover): Layer.Layer<EffectApprover> =>
  Layer.succeed(EffectApprover, approverToEffect(approver as Approver))

/**
 * Views a plain approver as an {@link EffectApprover}. A rejection counts as a denial. (An approver
 * that already answers with Effects is accepted as is.)
 *
 * @since 0.1.0
 */
export const approverToEffect = (approver: Approver): EffectApprover => ({
  approve: (request) =>
    Effect.suspend(() => {
      let answer: unknown
      try {
        answer = approver.approve(request)
      } catch (error) {
        return Effect.succeed(failed(error))
      }
      if (Effect.isEffect(answer)) return answer as Effect.Effect<ApprovalDecision>
      return Effect.promise(() => Promise.resolve(answer as ApprovalDecision).catch(failed))
    }),
})

const failed = (error: unknown): ApprovalDecision => ({
  approved: false,
  reason: `approver failed: ${(error as Error)?.message ?? String(error)}`,
})

/**
 * Views an {@link EffectApprover} as a plain approver.
 *
 * @since 0.1.0
 */
export const approverFromEffect = (approver: EffectApprover): Approver => ({
  approve: (request) => Effect.runPromise(approver.approve(request)),
})
