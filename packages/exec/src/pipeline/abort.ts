/**
 * Turning an abort into a typed error.
 *
 * @since 0.1.0
 */
import { Cancelled, isToolError, type ToolError } from "@toolplane/foundation"

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
