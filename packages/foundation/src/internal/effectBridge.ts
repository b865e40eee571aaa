/**
 * Plumbing between the plain (Promise, AbortSignal) and Effect (fiber, interruption) forms of the
 * contracts. Not public: the converters (`backendToEffect`, `toolServiceToEffect`, ...) are.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Exit, Option } from "effect"
import {
  contextToInit,
  type ExecutionContext,
  type ExecutionContextInit,
  makeContext,
  neverAborted,
} from "../executionContext.js"
import { Cancelled, causeOf, ExecutionFailed, isToolError, type ToolError } from "../toolError.js"

const NO_INIT: ExecutionContextInit = Object.freeze({})

/**
 * Marks a signal that only fiber interruption aborts. Whoever waits on a call made with it is the
 * interrupted fiber, which stops waiting by itself; so the runner (`@toolplane/exec`) passes such a
 * signal to the backend without racing the call against it. A global symbol, so exec reads it without
 * importing foundation's internals.
 *
 * @since 0.1.0
 */
export const INTERRUPT_ONLY: unique symbol = Symbol.for("@toolplane/foundation/interruptOnlySignal")

/**
 * Lifts a promise-returning function that takes a context into an Effect: interrupting the fiber aborts
 * the context's signal, which is how a cancelled Effect program stops a running tool. One
 * `AbortController` per call; a caller's own signal is linked to it with one listener (no
 * `AbortSignal.any`, which costs microseconds per call and keeps the signals alive until both are
 * collected).
 *
 * @since 0.1.0
 */
export const fromContextual = <A, E>(
  run: (ctx: ExecutionContext) => Promise<A>,
  context: ExecutionContext | ExecutionContextInit = NO_INIT,
  onError: (error: unknown) => E,
): Effect.Effect<A, E> =>
  Effect.callback<A, E>((resume) => {
    const init = contextToInit(context)
    const controller = new AbortController()
    const outer = init.signal !== neverAborted ? init.signal : undefined
    let unlink: (() => void) | undefined
    // A plain assignment: defining a property on a host object costs about a microsecond more.
    if (outer === undefined) (controller.signal as { [INTERRUPT_ONLY]?: true })[INTERRUPT_ONLY] = true
    else {
      if (outer.aborted) controller.abort(outer.reason)
      else {
        const onAbort = () => controller.abort(outer.reason)
        outer.addEventListener("abort", onAbort, { once: true })
        unlink = () => outer.removeEventListener("abort", onAbort)
      }
    }
    let promise: Promise<A>
    try {
      promise = run(
        makeContext(
          init === NO_INIT ? { signal: controller.signal } : { ...init, signal: controller.signal },
        ),
      )
    } catch (error) {
      unlink?.()
      resume(Effect.fail(onError(error)))
      return
    }
    promise.then(
      (value) => {
        unlink?.()
        resume(Effect.succeed(value))
      },
      (error: unknown) => {
        unlink?.()
        resume(Effect.suspend(() => Effect.fail(onError(error))))
      },
    )
    return Effect.sync(() => {
      unlink?.()
      controller.abort()
    })
  })

/**
 * Runs an Effect as a Promise that rejects only with {@link ToolError}s: a failure as itself, an
 * interruption (the signal aborted) as {@link Cancelled}, a defect as {@link ExecutionFailed}.
 *
 * @since 0.1.0
 */
export const runTyped = async <A>(
  effect: Effect.Effect<A, ToolError>,
  toolId: string,
  signal: AbortSignal | undefined,
): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect, signal ? { signal } : undefined)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  if (Cause.hasInterrupts(exit.cause)) {
    const reason = signal?.reason
    throw isToolError(reason)
      ? reason
      : new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
  }
  throw new ExecutionFailed({ toolId, cause: causeOf(Cause.squash(exit.cause)) })
}

/**
 * Runs a synchronous Effect and returns its value, throwing its typed failure; a defect or an Effect
 * that is not synchronous throws {@link ExecutionFailed}. Used where the plain contract is synchronous
 * (enrichers).
 *
 * @since 0.1.0
 */
export const runTypedSync = <A>(effect: Effect.Effect<A, ToolError>, toolId: string): A => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  throw new ExecutionFailed({ toolId, cause: causeOf(Cause.squash(exit.cause)) })
}
