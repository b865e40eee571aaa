/**
 * Turning an abort into a typed error.
 *
 * @since 0.1.0
 */
import { Cancelled, isToolError, type ToolError } from "@toolplane/foundation"

/**
 * Foundation's mark on a signal whose abort nobody waits past (its `INTERRUPT_ONLY`: a global symbol, so
 * exec reads and sets it without importing foundation's internals).
 */
const INTERRUPT_ONLY = Symbol.for("@toolplane/foundation/interruptOnlySignal")

/**
 * Whether `signal` carries the interrupt-only mark: the runner then passes it to the backend without a
 * per-call abort scope (controller, listeners, race), since whoever would wait past its abort is gone.
 *
 * @since 0.1.0
 */
export const isInterruptOnly = (signal: AbortSignal): boolean =>
  (signal as { [INTERRUPT_ONLY]?: true })[INTERRUPT_ONLY] === true

/**
 * Puts the interrupt-only mark (see {@link isInterruptOnly}) on `signal` and returns it.
 *
 * @since 0.1.0
 */
export const markInterruptOnly = (signal: AbortSignal): AbortSignal => {
  ;(signal as { [INTERRUPT_ONLY]?: true })[INTERRUPT_ONLY] = true
  return signal
}

/**
 * The typed error an aborted signal stands for: its reason when that already is a {@link ToolError}
 * (the runner aborts with `Timeout` or `Cancelled`), otherwise {@link Cancelled}.
 *
 * @since 0.1.0
 */
export const abortError = (signal: AbortSignal, toolId: string): ToolError => {
  const reason = signal.reason
  if (isToolError(reason)) return reason
  return new Cancelled({
    toolId,
    reason: reason instanceof Error ? reason.message : typeof reason === "string" ? reason : undefined,
  })
}

/**
 * Resolves after `ms`, or rejects with the abort error when `signal` aborts first.
 *
 * @since 0.1.0
 */
export const sleep = (ms: number, signal: AbortSignal | undefined, toolId: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal, toolId))
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal!, toolId))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
