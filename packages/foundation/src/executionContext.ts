/**
 * The execution context every call carries: who is calling, until when, how to cancel, where progress
 * goes, and free metadata. AbortSignal and Effect interruption drive each other: running an Effect
 * handler with a context makes the signal interrupt it, and a context made inside an Effect aborts its
 * signal when the fiber is interrupted.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { Context, Effect } from "effect"

/**
 * A progress notification.
 *
 * @since 0.1.0
 */
export interface Progress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * A log message a tool emits while it runs (MCP `notifications/message`).
 *
 * @since 0.1.0
 */
export interface LogEntry {
  readonly level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency"
  readonly data: unknown
  readonly logger?: string
}

/**
 * Requests a tool may send back to the client that called it, when the caller's protocol supports them
 * (MCP sampling, elicitation and roots), and what the client declared it can answer. Each request is
 * absent when the caller cannot answer it. Resource reads and prompt fetches get the same requests
 * through their context.
 *
 * @since 0.1.0
 */
export interface ClientRequests {
  /** Ask the client's model for a completion (MCP `sampling/createMessage`); params and result are MCP-shaped. */
  readonly createMessage?: (
    params: Readonly<Record<string, unknown>>,
  ) => Promise<Readonly<Record<string, unknown>>>
  /** Ask the user for structured input (MCP `elicitation/create`). */
  readonly elicitInput?: (
    params: Readonly<Record<string, unknown>>,
  ) => Promise<Readonly<Record<string, unknown>>>
  /**
   * Ask the client for its roots (MCP `roots/list`): the directories or files it lets the server work
   * in. The result is MCP-shaped (`{ roots: [{ uri, name? }] }`).
   *
   * @since 0.2.0
   */
  readonly listRoots?: (
    params?: Readonly<Record<string, unknown>>,
  ) => Promise<Readonly<Record<string, unknown>>>
  /**
   * The capabilities the client declared (MCP `ClientCapabilities`: `elicitation`, `sampling`, `roots`,
   * …), when the caller's protocol tells them; absent when unknown. A tool that can do with one of
   * several kinds of input picks one the client declared, e.g.
   * `ctx.client.capabilities?.elicitation ? ask the user : ask the model`.
   *
   * @since 0.2.0
   */
  readonly capabilities?: Readonly<Record<string, unknown>>
}

/**
 * The context of one call.
 *
 * @since 0.1.0
 */
export interface ExecutionContext {
  readonly callId: string
  readonly callerId?: string
  readonly sessionId?: string
  /** Epoch milliseconds after which the call should give up. */
  readonly deadline?: number
  /** Aborted when the caller cancels, the deadline passes, or the Effect fiber is interrupted. */
  readonly signal: AbortSignal
  readonly reportProgress: (progress: Progress) => void
  /** Sends a log message to the caller (a no-op when the caller does not listen). */
  readonly log: (entry: LogEntry) => void
  /** Requests the tool may send to its caller; empty when the caller supports none. */
  readonly client: ClientRequests
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * What a caller may specify; everything is optional.
 *
 * @since 0.1.0
 */
export interface ExecutionContextInit {
  readonly callId?: string
  readonly callerId?: string
  readonly sessionId?: string
  /** Absolute deadline (epoch ms). */
  readonly deadline?: number
  /** Relative deadline; combined with `deadline`, the earlier wins. */
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
  readonly onProgress?: (progress: Progress) => void
  readonly onLog?: (entry: LogEntry) => void
  readonly client?: ClientRequests
  readonly metadata?: Readonly<Record<string, unknown>>
}

const NEVER_ABORTED: AbortSignal = new AbortController().signal
const IGNORE_PROGRESS = (): void => {}
const IGNORE_LOG = (): void => {}
const NO_CLIENT: ClientRequests = Object.freeze({})
const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({})
const CONTEXT = Symbol.for("@toolplane/foundation/ExecutionContext")

const CALL_ID_PREFIX = `${randomUUID().slice(0, 8)}-`
let callCounter = 0

/**
 * A call id unique within this process and unlikely to collide across processes (a random per-process
 * prefix and a counter: cheaper than a UUID per call).
 *
 * @since 0.1.0
 */
export const nextCallId = (): string => CALL_ID_PREFIX + (++callCounter).toString(36)

const NO_INIT: ExecutionContextInit = Object.freeze({})

/**
 * Builds a context. Without a signal the context can never be cancelled; the runner adds its own
 * signal when it enforces a deadline. Cheap enough for every call (one object, no UUID).
 *
 * @since 0.1.0
 */
export const makeContext = (init: ExecutionContextInit = NO_INIT): ExecutionContext => {
  let deadline = init.deadline
  if (init.timeoutMs !== undefined) {
    const relative = Date.now() + init.timeoutMs
    deadline = deadline === undefined ? relative : Math.min(deadline, relative)
  }
  const ctx: ExecutionContext & { [CONTEXT]: true } = {
    [CONTEXT]: true,
    callId: init.callId ?? nextCallId(),
    callerId: init.callerId,
    sessionId: init.sessionId,
    deadline,
    signal: init.signal ?? NEVER_ABORTED,
    reportProgress: init.onProgress ?? IGNORE_PROGRESS,
    log: init.onLog ?? IGNORE_LOG,
    client: init.client ?? NO_CLIENT,
    metadata: init.metadata ?? EMPTY,
  }
  return ctx
}

/**
 * The signal of a context that can never be cancelled (shared by all such contexts).
 *
 * @since 0.1.0
 */
export const neverAborted: AbortSignal = NEVER_ABORTED

/**
 * Tells whether a value was made by {@link makeContext}.
 *
 * @since 0.1.0
 */
export const isExecutionContext = (value: unknown): value is ExecutionContext =>
  typeof value === "object" && value !== null && CONTEXT in value

/**
 * Accepts a context or an init and returns a context.
 *
 * @since 0.1.0
 */
export const toContext = (value: ExecutionContext | ExecutionContextInit | undefined): ExecutionContext =>
  value === undefined ? makeContext() : isExecutionContext(value) ? value : makeContext(value)

/**
 * A copy of `ctx` with some fields replaced (for example a signal that also fires on a timeout).
 *
 * @since 0.1.0
 */
export const deriveContext = (
  ctx: ExecutionContext,
  patch: Partial<Omit<ExecutionContext, "callId">>,
): ExecutionContext => ({ ...ctx, ...patch })

/**
 * Milliseconds left before the deadline (`Infinity` without one, never negative).
 *
 * @since 0.1.0
 */
export const remainingMs = (ctx: ExecutionContext, now = Date.now()): number =>
  ctx.deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, ctx.deadline - now)

/**
 * The context of the current call, for Effect handlers: `const ctx = yield* CurrentContext`.
 *
 * @since 0.1.0
 */
export class CurrentContext extends Context.Service<CurrentContext, ExecutionContext>()(
  "@toolplane/foundation/CurrentContext",
) {}

/**
 * Runs an Effect under a context: the context's signal interrupts the fiber, and the context is
 * available as {@link CurrentContext}. The returned promise rejects with the Effect's typed failure.
 *
 * @since 0.1.0
 */
export const runWithContext = <A, E>(
  effect: Effect.Effect<A, E, CurrentContext>,
  ctx: ExecutionContext,
): Promise<A> => Effect.runPromise(Effect.provideService(effect, CurrentContext, ctx), { signal: ctx.signal })

/**
 * The init that reproduces a context (used when a context must be rebuilt with another signal).
 *
 * @since 0.1.0
 * @internal
 */
export const contextToInit = (ctx: ExecutionContext | ExecutionContextInit): ExecutionContextInit => {
  if (!isExecutionContext(ctx)) return ctx
  return {
    callId: ctx.callId,
    signal: ctx.signal,
    onProgress: ctx.reportProgress,
    onLog: ctx.log,
    client: ctx.client,
    metadata: ctx.metadata,
    ...(ctx.callerId !== undefined ? { callerId: ctx.callerId } : {}),
    ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
    ...(ctx.deadline !== undefined ? { deadline: ctx.deadline } : {}),
  }
}
