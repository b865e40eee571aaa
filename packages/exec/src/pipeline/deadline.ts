/**
 * Step 6, deadline and cancellation. A call's deadline is the caller's (`context.deadline`), else the
 * tool's `timeoutMs`, else the runner's `defaultTimeoutMs`. When a deadline applies or the caller can
 * cancel, the call runs in a scope with its own AbortSignal: the backend receives that signal (so an
 * in-process handler, a subprocess or a remote request really stops), and the caller is answered with
 * {@link Timeout} or {@link Cancelled} at once, even if the backend ignores the signal. Calls with
 * neither pay for no timer, listener or controller.
 *
 * @since 0.1.0
 */
import { Cancelled, type ExecutionContext, isToolError, Timeout, type ToolError } from "@toolplane/foundation"
import { abortError } from "./abort.js"

/**
 * A call's abort scope.
 *
 * @since 0.1.0
 */
export interface CallScope {
  /** Aborts on the caller's cancellation or at the deadline; its reason is a typed error. */
  readonly signal: AbortSignal
  /** Rejects with the typed abort error when `signal` aborts; never resolves. */
  readonly aborted: Promise<never>
  /** Clears the timer and the caller listener. */
  dispose(): void
}

/**
 * The deadline of a call (epoch ms), or `undefined`.
 *
 * @since 0.1.0
 */
export const effectiveDeadline = (ctx: ExecutionContext, timeoutMs: number | undefined): number | undefined =>
  ctx.deadline ?? (timeoutMs === undefined ? undefined : Date.now() + timeoutMs)

const noop = (): void => {}

const callerCancelled = (signal: AbortSignal, toolId: string): ToolError => {
  const reason = signal.reason
  if (isToolError(reason)) return reason
  return new Cancelled({
    toolId,
    reason: reason instanceof Error ? reason.message : typeof reason === "string" ? reason : undefined,
  })
}

/**
 * Opens the abort scope of a call.
 *
 * @since 0.1.0
 */
export const openScope = (
  ctx: ExecutionContext,
  toolId: string,
  deadline: number | undefined,
  callerCanCancel: boolean,
): CallScope => {
  const controller = new AbortController()
  const caller = ctx.signal
  let timer: ReturnType<typeof setTimeout> | undefined
  let onCallerAbort: (() => void) | undefined
  if (callerCanCancel) {
    if (caller.aborted) controller.abort(callerCancelled(caller, toolId))
    else {
      onCallerAbort = () => controller.abort(callerCancelled(caller, toolId))
      caller.addEventListener("abort", onCallerAbort, { once: true })
    }
  }
  if (deadline !== undefined && !controller.signal.aborted) {
    const ms = deadline - Date.now()
    const timeoutMs = Math.max(0, Math.round(ms))
    if (ms <= 0) controller.abort(new Timeout({ toolId, timeoutMs }))
    // setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); such a deadline never fires in practice.
    else if (ms <= 0x7fffffff)
      timer = setTimeout(() => controller.abort(new Timeout({ toolId, timeoutMs })), ms)
  }
  const signal = controller.signal
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(abortError(signal, toolId))
    else signal.addEventListener("abort", () => reject(abortError(signal, toolId)), { once: true })
  })
  aborted.catch(noop)
  return {
    signal,
    aborted,
    dispose() {
      if (timer !== undefined) clearTimeout(timer)
      if (onCallerAbort) caller.removeEventListener("abort", onCallerAbort)
    },
  }
}
