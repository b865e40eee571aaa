/**
 * Held calls: a stateless (2026-07-28) `tools/call` whose running upstream call asks its caller a
 * question (a 2025 server's `elicitation/create` or `sampling/createMessage` mid-call) is not stopped
 * and re-run on the retry: the upstream call stays open on the replica that started it while the
 * client answers, and the retry's answers resume it where it waits. The call is found again by an id
 * carried inside the signed `requestState` (with the owning replica's id). A retry that reaches another
 * replica is forwarded to the owner over the replica bus (the owner resumes the call and sends the next
 * step back); without a bus, or when the owner does not answer in time, the retry is refused with a
 * typed error and nothing runs again. A held call waits at most `timeoutMs` for its answers, then is
 * cancelled upstream and its state refused. Held calls are bounded per caller and per replica.
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import type { ReplicaBus } from "../replicaBus.js"
import { CallController } from "../serve.js"
import { ModernProtocolError } from "./errors.js"
import type { InputRound } from "./inputRequests.js"
import { ModernErrorCode, SERVER_INFO_META_KEY } from "./protocol.js"
import type { RequestStateBinding, RequestStateClaims, RequestStates } from "./requestState.js"

/**
 * JSON-RPC error codes (server-defined range) of a retry of a held call that cannot resume it; nothing
 * runs again after any of them, and sending the call again without `requestState` starts over.
 *
 * @since 0.2.0
 */
export const HeldCallErrorCode = {
  /** The held call is over: its deadline passed, it was cancelled, or its replica stopped. */
  Gone: -32050,
  /** The call is held by another replica that cannot be reached (no bus, or it did not answer). */
  Elsewhere: -32051,
  /** Too many calls are held for this caller, or on this replica. */
  TooMany: -32052,
} as const

/**
 * Limits of calls held open while a 2026-07-28 client answers the questions their running upstream
 * asked (`serveHttp`'s `heldCalls`).
 *
 * @since 0.2.0
 */
export interface HeldCallOptions {
  /** How long a held call waits for the client's answers before it is cancelled. Default 5 minutes. */
  readonly timeoutMs?: number
  /** Held calls per caller at once. Default 16. */
  readonly maxPerCaller?: number
  /** Held calls on one replica at once. Default 1000. */
  readonly max?: number
  /**
   * How long a replica forwarding a retry waits for the owning replica to acknowledge it (and, while the
   * resumed call runs, between the owner's heartbeats). Default 3000 ms.
   */
  readonly forwardTimeoutMs?: number
}

/** One input request of a held call. */
interface Ask {
  readonly method: string
  readonly params: Record<string, unknown>
  readonly resolve: (answer: unknown) => void
  readonly reject: (error: unknown) => void
}

type Settled =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly error: unknown }

/** What a round of a held call came to: its result, or the questions it waits on. */
export type HeldStep =
  | { readonly complete: Record<string, unknown> }
  | { readonly input: Record<string, { method: string; params: Record<string, unknown> }> }

/** Where a call's notifications go: the request currently attached to it. */
export class HeldSink {
  constructor(public target: { notify(message: Record<string, unknown>): void }) {}
  notify(message: Record<string, unknown>): void {
    this.target.notify(message)
  }
}

class HeldCall {
  readonly id = randomBytes(12).toString("base64url")
  readonly asks = new Map<string, Ask>()
  settled: Settled | undefined
  waiting = false
  /** Why the call was given up (a question it asks after that is refused at once). */
  abandoned: Error | undefined
  timer: NodeJS.Timeout | undefined
  #wake: (() => void) | undefined
  readonly done: Promise<void>

  constructor(
    readonly caller: string,
    readonly round: InputRound,
    readonly controller: CallController,
    readonly sink: HeldSink,
    run: Promise<Record<string, unknown>>,
  ) {
    this.done = run.then(
      (value) => {
        this.settled = { ok: true, value }
      },
      (error: unknown) => {
        this.settled = { ok: false, error }
      },
    )
  }

  ask(key: string, method: string, params: Record<string, unknown>): Promise<never> {
    if (this.abandoned !== undefined) return Promise.reject(this.abandoned)
    return new Promise<never>((resolve, reject) => {
      this.asks.set(key, { method, params, resolve: resolve as (answer: unknown) => void, reject })
      const wake = this.#wake
      this.#wake = undefined
      // A tick later: questions asked together go out in one InputRequiredResult.
      if (wake) setImmediate(wake)
    })
  }

  /** Resolves once the call asks something (now, if it already waits on a question). */
  asked(): Promise<void> {
    if (this.asks.size > 0) return new Promise((resolve) => setImmediate(resolve))
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }
}

interface Waiter {
  readonly resolve: (step: HeldStep) => void
  readonly reject: (error: unknown) => void
  arm(): void
  timer: NodeJS.Timeout | undefined
}

/** Bus messages of held calls (`t`: the replica they are for, `f`: the sender). */
type HeldMessage =
  | { k: "held-resume"; t: string; f: string; q: string; h: string; c: string; x: Record<string, unknown> }
  | { k: "held-alive"; t: string; q: string }
  | {
      k: "held-step"
      t: string
      q: string
      s?: HeldStep
      e?: { code: number; message: string; data?: unknown }
    }
  | { k: "held-cancel"; t: string; h: string }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The held calls of one replica, and the retries it forwards to other replicas. */
export class HeldCalls {
  /** This replica's id (carried in the states of the calls it holds). */
  readonly replicaId = randomBytes(9).toString("base64url")
  readonly #calls = new Map<string, HeldCall>()
  readonly #perCaller = new Map<string, number>()
  readonly #waiters = new Map<string, Waiter>()
  readonly #asking = new WeakSet<object>()
  readonly #timeoutMs: number
  readonly #maxPerCaller: number
  readonly #max: number
  readonly #forwardMs: number
  #unsubscribe: Promise<() => Promise<void>> | undefined

  constructor(
    private readonly states: RequestStates,
    private readonly serverInfo: () => Record<string, unknown>,
    options: HeldCallOptions & { bus?: ReplicaBus; onError?: (error: unknown) => void } = {},
  ) {
    this.#timeoutMs = options.timeoutMs ?? 5 * 60_000
    this.#maxPerCaller = options.maxPerCaller ?? 16
    this.#max = options.max ?? 1000
    this.#forwardMs = options.forwardTimeoutMs ?? 3000
    this.#bus = options.bus
    this.#onError = options.onError
    this.#unsubscribe = options.bus?.subscribe((text) => {
      if (!text.includes('"held-') || !text.includes(this.replicaId)) return
      let message: HeldMessage
      try {
        message = JSON.parse(text) as HeldMessage
      } catch {
        return
      }
      if (isObject(message) && message.t === this.replicaId) this.#fromBus(message)
    })
    this.#unsubscribe?.catch((error) => options.onError?.(error))
  }

  readonly #bus: ReplicaBus | undefined
  readonly #onError: ((error: unknown) => void) | undefined

  /** Resolves once subscribed to the bus (if any). */
  async start(): Promise<void> {
    await this.#unsubscribe
  }

  /** Held calls on this replica. */
  get size(): number {
    return this.#calls.size
  }

  /**
   * Runs a stateless `tools/call` whose running upstream may ask questions: the tool's result (to be
   * finished as usual), or a finished `InputRequiredResult` whose state names the held call.
   */
  async run(
    round: InputRound,
    binding: RequestStateBinding,
    controller: CallController,
    sink: HeldSink,
    run: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    let call: HeldCall | undefined
    let promise: Promise<Record<string, unknown>> | undefined
    // The call's result, or `undefined` once it asks (one promise: this runs on every stateless call).
    const result = await new Promise<Record<string, unknown> | undefined>((resolve, reject) => {
      round.hold = (key, request) => {
        if (call === undefined) {
          call = new HeldCall(
            binding.caller,
            round,
            controller,
            sink,
            promise ?? Promise.reject(new Error("no call")),
          )
          // A turn later: questions asked together go out in one InputRequiredResult.
          setImmediate(resolve, undefined)
        }
        return call.ask(key, request.method, request.params)
      }
      promise = run()
      promise.then(resolve, reject)
    })
    if (result !== undefined) return result
    // The call asks: it is held from now on (or refused, cancelled, when too many are).
    const held = call!
    const count = this.#perCaller.get(held.caller) ?? 0
    if (count >= this.#maxPerCaller || this.#calls.size >= this.#max) {
      this.#abandon(held, "too many held calls")
      const mine = count >= this.#maxPerCaller
      throw new ModernProtocolError(
        HeldCallErrorCode.TooMany,
        mine
          ? `Too many held calls: this caller already has ${count} calls waiting for answers (limit ${this.#maxPerCaller}); answer or abandon one first`
          : `Too many held calls: this replica holds ${this.#calls.size} calls waiting for answers (limit ${this.#max}); retry later`,
        { data: { limit: mine ? this.#maxPerCaller : this.#max, scope: mine ? "caller" : "replica" } },
      )
    }
    this.#calls.set(held.id, held)
    this.#perCaller.set(held.caller, count + 1)
    return this.#finish(await this.#next(held), binding, held.id)
  }

  /**
   * A retry of a held call: its answers resume the call here, or are forwarded to the replica holding
   * it. The result is finished: the tool's result, or the next `InputRequiredResult`.
   */
  async resume(
    claims: RequestStateClaims,
    binding: RequestStateBinding,
    responses: unknown,
    controller: CallController,
    sink: HeldSink["target"],
  ): Promise<Record<string, unknown>> {
    const id = claims.h!
    const answers = isObject(responses) ? responses : {}
    const owner = claims.o ?? ""
    const step =
      owner === this.replicaId
        ? await this.#resumeHere(id, claims.c, answers, controller, sink)
        : await this.#forward(owner, id, claims.c, answers, controller)
    return this.#finish(step, binding, id, owner)
  }

  /** An `InputRequiredResult` for a step that asks (its state names the held call and its replica). */
  #finish(
    step: HeldStep,
    binding: RequestStateBinding,
    id: string,
    owner = this.replicaId,
  ): Record<string, unknown> {
    if ("complete" in step) return step.complete
    const keys = Object.keys(step.input)
    const result = {
      resultType: "input_required",
      inputRequests: step.input,
      requestState: this.states.sign(binding, keys, {}, { h: id, o: owner }),
      _meta: { [SERVER_INFO_META_KEY]: this.serverInfo() },
    }
    this.#asking.add(result)
    return result
  }

  /** Whether `result` is an `InputRequiredResult` of a held call (finished: answered as it is). */
  asks(result: Record<string, unknown>): boolean {
    return this.#asking.has(result)
  }

  async #resumeHere(
    id: string,
    caller: string,
    answers: Record<string, unknown>,
    controller: CallController,
    sink: HeldSink["target"],
  ): Promise<HeldStep> {
    const call = this.#calls.get(id)
    if (call === undefined || !call.waiting || call.caller !== caller) throw gone(id)
    call.waiting = false
    clearTimeout(call.timer)
    call.sink.target = sink
    // The client of this round went away: the call is cancelled (nobody is left to answer it).
    const cancel = () => call.controller.abort(new Error("the client went away while the held call ran"))
    controller.signal.addEventListener("abort", cancel, { once: true })
    try {
      for (const [key, ask] of [...call.asks])
        if (Object.hasOwn(answers, key)) {
          call.asks.delete(key)
          ask.resolve(answers[key])
        }
      return await this.#next(call)
    } finally {
      controller.signal.removeEventListener("abort", cancel)
    }
  }

  /** Waits for the call's next step: its end (it is released) or questions (it waits, with a deadline). */
  async #next(call: HeldCall): Promise<HeldStep> {
    await Promise.race([call.done, call.asked()])
    if (call.settled === undefined) {
      call.waiting = true
      call.timer = setTimeout(() => this.#abandon(call, "its answers did not come in time"), this.#timeoutMs)
      call.timer.unref?.()
      const input: Record<string, { method: string; params: Record<string, unknown> }> = {}
      for (const [key, ask] of call.asks) input[key] = { method: ask.method, params: ask.params }
      return { input }
    }
    this.#release(call)
    const missing = call.round.missing
    if (Object.keys(missing).length > 0)
      throw new ModernProtocolError(
        ModernErrorCode.MissingRequiredClientCapability,
        `Missing required client capability: ${Object.keys(missing).join(", ")}`,
        { httpStatus: 400, data: { requiredCapabilities: missing } },
      )
    if (!call.settled!.ok) throw call.settled!.error
    return { complete: call.settled!.value }
  }

  #release(call: HeldCall): void {
    clearTimeout(call.timer)
    if (!this.#calls.delete(call.id)) return
    const left = (this.#perCaller.get(call.caller) ?? 1) - 1
    if (left > 0) this.#perCaller.set(call.caller, left)
    else this.#perCaller.delete(call.caller)
  }

  /** Cancels a held call upstream and forgets it (its state is refused from now on). */
  #abandon(call: HeldCall, why: string): void {
    this.#release(call)
    call.waiting = false
    const error = new Error(`the held call was cancelled: ${why}`)
    call.abandoned = error
    // abort, not cancel: the request that started the call (when still open) is answered, not dropped
    call.controller.abort(error)
    for (const ask of call.asks.values()) ask.reject(error)
    call.asks.clear()
  }

  /** Sends a retry to the replica holding its call and waits for the step it comes to. */
  #forward(
    owner: string,
    id: string,
    caller: string,
    answers: Record<string, unknown>,
    controller: CallController,
  ): Promise<HeldStep> {
    const bus = this.#bus
    if (bus === undefined)
      return Promise.reject(
        new ModernProtocolError(
          HeldCallErrorCode.Elsewhere,
          `The call is held by replica ${owner}, and this replica has no replica bus to reach it: retry there, or send the call again without requestState`,
          { data: { replica: owner, reason: "no-bus" } },
        ),
      )
    const q = randomBytes(12).toString("base64url")
    return new Promise<HeldStep>((resolve, reject) => {
      const stop = () => {
        clearTimeout(waiter.timer)
        this.#waiters.delete(q)
        controller.signal.removeEventListener("abort", abort)
      }
      const abort = () => {
        stop()
        this.#publish({ k: "held-cancel", t: owner, h: id })
        reject(controller.signal.reason)
      }
      const waiter: Waiter = {
        timer: undefined,
        resolve: (step) => {
          stop()
          resolve(step)
        },
        reject: (error) => {
          stop()
          reject(error)
        },
        arm: () => {
          clearTimeout(waiter.timer)
          waiter.timer = setTimeout(() => {
            // Should the owner still get the retry, it cancels the call instead of resuming it unseen.
            this.#publish({ k: "held-cancel", t: owner, h: id })
            waiter.reject(
              new ModernProtocolError(
                HeldCallErrorCode.Elsewhere,
                `The call is held by replica ${owner}, which did not answer over the replica bus within ${this.#forwardMs} ms (it may have stopped): send the call again without requestState`,
                { data: { replica: owner, reason: "no-answer" } },
              ),
            )
          }, this.#forwardMs)
        },
      }
      this.#waiters.set(q, waiter)
      waiter.arm()
      controller.signal.addEventListener("abort", abort, { once: true })
      this.#publish({ k: "held-resume", t: owner, f: this.replicaId, q, h: id, c: caller, x: answers })
    })
  }

  #publish(message: HeldMessage): void {
    this.#bus?.publish(JSON.stringify(message)).catch((error) => this.#onError?.(error))
  }

  #fromBus(message: HeldMessage): void {
    switch (message.k) {
      case "held-resume":
        void this.#resumeForPeer(message)
        return
      case "held-alive":
        this.#waiters.get(message.q)?.arm()
        return
      case "held-step": {
        const waiter = this.#waiters.get(message.q)
        if (waiter === undefined) return
        if (message.s !== undefined) waiter.resolve(message.s)
        else
          waiter.reject(
            new ModernProtocolError(
              message.e?.code ?? ModernErrorCode.InternalError,
              message.e?.message ?? "Internal error",
              {
                ...(message.e?.data !== undefined ? { data: message.e.data } : {}),
              },
            ),
          )
        return
      }
      case "held-cancel": {
        // The retry's client went away, or the forwarding replica gave up waiting: the call must not go
        // on unseen (its client would start over and run it twice).
        const call = this.#calls.get(message.h)
        if (call !== undefined) this.#abandon(call, "the retry forwarded for it was given up")
      }
    }
  }

  /** Resumes a call held here for a retry another replica received, and sends it the step. */
  async #resumeForPeer(message: Extract<HeldMessage, { k: "held-resume" }>): Promise<void> {
    const back = { t: message.f, q: message.q }
    this.#publish({ k: "held-alive", ...back })
    const alive = setInterval(
      () => this.#publish({ k: "held-alive", ...back }),
      Math.max(50, this.#forwardMs / 3),
    )
    try {
      // Notifications of a forwarded round are not relayed (the retry's stream is on the other replica).
      const step = await this.#resumeHere(
        message.h,
        message.c,
        isObject(message.x) ? message.x : {},
        new CallController(),
        {
          notify: () => {},
        },
      )
      this.#publish({ k: "held-step", ...back, s: step })
    } catch (error) {
      this.#publish({ k: "held-step", ...back, e: errorData(error) })
    } finally {
      clearInterval(alive)
    }
  }

  /** Cancels every held call (the server is closing). */
  close(): void {
    for (const call of [...this.#calls.values()]) this.#abandon(call, "the server is shutting down")
    for (const waiter of [...this.#waiters.values()])
      waiter.reject(new ModernProtocolError(HeldCallErrorCode.Gone, "The server is shutting down"))
    void this.#unsubscribe?.then((off) => off()).catch(() => {})
    this.#unsubscribe = undefined
  }
}

const gone = (id: string) =>
  new ModernProtocolError(
    HeldCallErrorCode.Gone,
    "The held call is over (its answers came too late, it was cancelled, or its replica stopped): send the call again without requestState",
    { data: { heldCall: id } },
  )

/** An error as the owning replica sends it back over the bus. */
const errorData = (error: unknown): { code: number; message: string; data?: unknown } => {
  if (error instanceof ModernProtocolError)
    return {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined ? { data: error.data } : {}),
    }
  if (isObject(error) && typeof error.code === "number" && typeof error.message === "string")
    return {
      code: error.code,
      message: error.message.replace(/^MCP error -?\d+: /, ""),
      ...(error.data !== undefined ? { data: error.data } : {}),
    }
  return { code: ModernErrorCode.InternalError, message: "Internal error" }
}
