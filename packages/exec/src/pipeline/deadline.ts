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
  /**
   * Settles as `work` does, or rejects with the typed abort error as soon as `signal` aborts (at once
   * when it already has), without a `Promise.race` or a listener of its own.
   *
   * @since 0.1.0
   */
  race<A>(work: Promise<A>): Promise<A>
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

const onDeadline = (scope: Scope, timeoutMs: number): void => scope.timedOut(timeoutMs)

/**
 * One object per scope: the caller listener is the scope itself (`handleEvent`), the deadline timer
 * passes it as an argument, and `race` keeps one reject function; no closures per call.
 */
class Scope implements CallScope {
  readonly #controller = new AbortController()
  readonly #caller: AbortSignal
  readonly #toolId: string
  #listening = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #reject: ((error: unknown) => void) | undefined

  constructor(caller: AbortSignal, toolId: string) {
    this.#caller = caller
    this.#toolId = toolId
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  listen(): void {
    if (this.#caller.aborted) this.#abort(callerCancelled(this.#caller, this.#toolId))
    else {
      this.#caller.addEventListener("abort", this, { once: true })
      this.#listening = true
    }
  }

  arm(deadline: number): void {
    if (this.#controller.signal.aborted) return
    const ms = deadline - Date.now()
    const timeoutMs = Math.max(0, Math.round(ms))
    if (ms <= 0) this.#abort(new Timeout({ toolId: this.#toolId, timeoutMs }))
    // setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); such a deadline never fires in practice.
    else if (ms <= 0x7fffffff) this.#timer = setTimeout(onDeadline, ms, this, timeoutMs)
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.#listening = false
    this.#abort(callerCancelled(this.#caller, this.#toolId))
  }

  timedOut(timeoutMs: number): void {
    this.#timer = undefined
    this.#abort(new Timeout({ toolId: this.#toolId, timeoutMs }))
  }

  #abort(reason: ToolError): void {
    const signal = this.#controller.signal
    if (signal.aborted) return
    // The backend's listeners run first (it stops its work); the race answers the caller at once.
    this.#controller.abort(reason)
    const reject = this.#reject
    this.#reject = undefined
    reject?.(abortError(signal, this.#toolId))
  }

  race<A>(work: Promise<A>): Promise<A> {
    const signal = this.#controller.signal
    if (signal.aborted) {
      work.catch(noop)
      return Promise.reject(abortError(signal, this.#toolId))
    }
    return new Promise<A>((resolve, reject) => {
      this.#reject = reject
      work.then(resolve, reject)
    })
  }

  dispose(): void {
    this.#reject = undefined
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    if (this.#listening) {
      this.#listening = false
      this.#caller.removeEventListener("abort", this)
    }
  }
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
  const scope = new Scope(ctx.signal, toolId)
  if (callerCanCancel) scope.listen()
  if (deadline !== undefined) scope.arm(deadline)
  return scope
}
