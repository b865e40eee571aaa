/**
 * The default sandbox: QuickJS compiled to WebAssembly, run in worker threads.
 *
 * Each worker holds one QuickJS module on a WebAssembly.Memory with a fixed maximum (the memory cap the
 * engine cannot exceed, whatever it allocates) and runs one program at a time in a fresh runtime and
 * context. Host calls and their answers travel as JSON text through two shared rings (no
 * `postMessage`, no structured clone); runs, aborts and anything too large for a ring go through ports.
 * The worker blocks on a shared counter (`Atomics.wait`), so an answer wakes it directly; the parent
 * waits for calls with `Atomics.waitAsync` on a second counter. The engine's interrupt handler stops a
 * program at its deadline; a native loop that never reaches it is stopped by terminating the worker
 * (hard wall-clock stop). A worker is discarded after a
 * timeout, a memory failure, any error escaping the WebAssembly, or when its memory grew near the cap.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads"
import {
  defaultSandboxLimits,
  hostErrorJson,
  type Sandbox,
  type SandboxLimits,
  type SandboxRunRequest,
  type SandboxRunResult,
} from "@toolplane/exec"
import {
  Cancelled,
  type ErrorCause,
  SandboxCrashed,
  SandboxError,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
} from "@toolplane/foundation"
import type { FromWorker, RunLimits, ToWorker, WireFailure } from "./internal/protocol.js"
import { newRingBuffer, type Ring, ringOf, ringRead, ringWrite } from "./internal/ring.js"

/**
 * Options of {@link quickJsSandbox}.
 *
 * @since 0.1.0
 */
export interface QuickJsSandboxOptions {
  /** Most programs running at once (one worker each). Default 2. */
  readonly maxWorkers?: number
  /** Workers kept started and idle, so a run does not pay a cold start. Default 1. */
  readonly warmWorkers?: number
  /** Hard cap of each worker's WebAssembly memory; per-run `memoryBytes` is clamped to it. Default 64 MiB. */
  readonly maxMemoryBytes?: number
  /** Default limits of every run (a run's own limits override them). */
  readonly limits?: SandboxLimits
  /** How long past the deadline the engine may take to stop by itself before its worker is terminated. Default 50 ms. */
  readonly graceMs?: number
  /**
   * Bytes of each of a worker's two shared rings for host calls and their answers (JSON text). A call
   * batch or answer larger than the free space goes as a message instead. `0`: messages only (slower).
   * Default 256 KiB.
   *
   * @since 0.1.0
   */
  readonly bridgeBytes?: number
  /**
   * Most programs one caller (`SandboxRunRequest.caller`) runs at once; its further programs wait even
   * when a worker is free, so one caller's runaway programs leave workers to the others. Runs without a
   * caller are not capped. Default: half of `maxWorkers`, rounded up.
   *
   * @since 0.1.0
   */
  readonly maxRunsPerCaller?: number
  /**
   * Most programs one caller has waiting for a worker; one more is refused at once with `SandboxLimit`
   * (`"queue"`). Runs without a caller are not capped. Default 8.
   *
   * @since 0.1.0
   */
  readonly maxQueuedPerCaller?: number
}

const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "./internal/worker.ts" : "./internal/worker.js",
  import.meta.url,
)

/** A compiled `WebAssembly.Module` (typed loosely: consumers' TypeScript setups may lack the wasm lib). */
type CompiledModule = object
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } }
).WebAssembly

let compiled: Promise<CompiledModule> | undefined
/** The engine compiled once per process; workers instantiate it without compiling again. */
const wasmModule = (): Promise<CompiledModule> => {
  compiled ??= (async () => {
    const require = createRequire(import.meta.url)
    const bytes = readFileSync(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))
    return wasmApi.compile(bytes)
  })()
  return compiled
}

interface Active {
  readonly id: number
  readonly request: SandboxRunRequest
  /** The caller whose turn and caps the run counts against. */
  readonly caller: Caller
  /** The host functions' names (a call names its function by index) and as JSON, made once per run. */
  readonly nameList: readonly string[]
  readonly names: string
  readonly limits: RunLimits
  readonly abort: AbortController
  readonly resolve: (result: SandboxRunResult) => void
  readonly reject: (error: unknown) => void
  /** `performance.now()` at the request: the wall-clock budget counts from here, time queued included. */
  readonly started: number
  readonly onAbort: () => void
  slot: Slot | undefined
  /** While queued: the wall-clock deadline; while running: the hard stop. */
  timer?: ReturnType<typeof setTimeout>
  /** Milliseconds spent waiting for a worker (set when it starts). */
  queuedMs: number
  /** Counted in its caller's `running`. */
  counted: boolean
  settled: boolean
}

/** One caller's runs: those waiting for a worker (in order) and how many are running. */
interface Caller {
  /** `undefined`: runs without a caller (the embedding application's own), never capped. */
  readonly key: string | undefined
  readonly queue: Active[]
  running: number
}

interface Slot {
  readonly worker: Worker
  /** The worker's inbox (the parent's end) and the counters: 0 the worker blocks on, 1 the parent waits on. */
  readonly inbox: MessagePort
  readonly signal: Int32Array
  /** Host calls from the worker, answers to it; absent with `bridgeBytes: 0`. */
  readonly calls: Ring | undefined
  readonly replies: Ring | undefined
  /** Started and not running a program. */
  idle: boolean
  /** Said `ready` at least once. */
  started: boolean
  /** Idle with a prepared engine (the worker said `ready` since its last run): a run starts at once. */
  primed: boolean
  active: Active | undefined
  dead: boolean
}

const failureOf = (
  wire: WireFailure,
  limits: RunLimits,
  logs: readonly string[],
  queuedMs: number,
): unknown => {
  const withLogs = logs.length > 0 ? { logs } : {}
  switch (wire.tag) {
    case "SandboxTimeout":
      return timeoutOf(limits.wallTimeMs, queuedMs, withLogs)
    case "SandboxMemory":
      return new SandboxMemory({ limitBytes: limits.memoryBytes, ...withLogs })
    case "SandboxLimit":
      return new SandboxLimit({
        limit: wire.limit,
        max:
          wire.limit === "output"
            ? limits.maxOutputBytes
            : wire.limit === "calls"
              ? limits.maxHostCalls
              : wire.limit === "arguments"
                ? limits.maxArgumentBytes
                : limits.cpuTimeMs,
        ...withLogs,
      })
    case "SandboxError": {
      let cause: ErrorCause
      try {
        const parsed = JSON.parse(wire.json) as { name?: unknown; message?: unknown; stack?: unknown }
        cause = {
          name: typeof parsed.name === "string" ? parsed.name : "Error",
          message: typeof parsed.message === "string" ? parsed.message : String(parsed.message),
          ...(typeof parsed.stack === "string" && parsed.stack !== ""
            ? { stack: trimStack(parsed.stack) }
            : {}),
        }
      } catch {
        cause = { name: "Error", message: "the program failed" }
      }
      return new SandboxError({ cause, ...withLogs })
    }
    case "SandboxCrashed":
      return new SandboxCrashed({ reason: wire.reason, ...withLogs })
    case "Cancelled":
      return new Cancelled({ toolId: "sandbox", reason: "the run was cancelled" })
  }
}

const timeoutOf = (timeoutMs: number, queuedMs: number, rest: { logs?: readonly string[] } = {}) =>
  new SandboxTimeout({ timeoutMs, ...(queuedMs >= 1 ? { queuedMs: Math.round(queuedMs) } : {}), ...rest })

/** The program's own frames only (never the prelude's), at most 12 lines: a stack overflow repeats one frame thousands of times. */
const trimStack = (stack: string): string => {
  const lines = stack.split("\n").filter((l) => l.trim() !== "" && !l.includes("toolplane-prelude.js"))
  return lines.length > 12
    ? [...lines.slice(0, 12), `    ... ${lines.length - 12} more frames`].join("\n")
    : lines.join("\n")
}

/** An answer as the worker takes it: `callId` for the value's JSON, `-callId` for the error's JSON. */
interface Reply {
  readonly callId: number
  readonly json: string
}

const valueReply = (callId: number, value: unknown): Reply => {
  try {
    return { callId, json: JSON.stringify(value) ?? "null" }
  } catch (error) {
    return errorReply(callId, {
      name: "TypeError",
      message: `the host function's result is not JSON data: ${String(error)}`,
    })
  }
}

const errorReply = (callId: number, error: Record<string, unknown>): Reply => ({
  callId: -callId,
  json: JSON.stringify(error),
})

/**
 * Creates the QuickJS sandbox. Workers start lazily (and `warmWorkers` of them right away); `close()`
 * terminates them.
 *
 * @example
 * ```ts
 * const sandbox = quickJsSandbox()
 * const run = await sandbox.run({
 *   code: "const r = await add(1, 2); console.log('sum', r); return r * 10",
 *   functions: { add: async ([a, b]) => (a as number) + (b as number) },
 * })
 * // run.result === 30, run.logs === ["sum 3"]
 * await sandbox.close()
 * ```
 *
 * @since 0.1.0
 */
export const quickJsSandbox = (options: QuickJsSandboxOptions = {}): Sandbox => {
  const maxWorkers = Math.max(1, options.maxWorkers ?? 2)
  const warm = Math.min(maxWorkers, Math.max(0, options.warmWorkers ?? 1))
  const maxMemoryBytes = options.maxMemoryBytes ?? defaultSandboxLimits.memoryBytes
  const graceMs = options.graceMs ?? 50
  const bridgeBytes = Math.max(0, options.bridgeBytes ?? 256 * 1024)
  const defaults = { ...defaultSandboxLimits, ...options.limits }
  const maxRunsPerCaller = Math.max(1, Math.floor(options.maxRunsPerCaller ?? Math.ceil(maxWorkers / 2)))
  const maxQueuedPerCaller = Math.max(0, Math.floor(options.maxQueuedPerCaller ?? 8))
  const slots = new Set<Slot>()
  /** Callers with runs queued or running. */
  const callers = new Map<string | undefined, Caller>()
  /** Callers with queued runs, in turn order: the next free worker goes to the first that may run one. */
  const turns: Caller[] = []
  let nextId = 0
  let closed = false
  /** Workers in a row that died before getting ready. */
  let failedStarts = 0

  const post = (slot: Slot, message: ToWorker): void => {
    slot.inbox.postMessage(message)
    Atomics.add(slot.signal, 0, 1)
    Atomics.notify(slot.signal, 0)
  }

  /** An answer to the worker: through the ring when it fits, else as a message. */
  const answer = (slot: Slot, id: number, reply: Reply): void => {
    if (slot.replies !== undefined && ringWrite(slot.replies, id, reply.callId, reply.json)) {
      Atomics.add(slot.signal, 0, 1)
      Atomics.notify(slot.signal, 0)
    } else post(slot, { type: "reply", id, callId: reply.callId, json: reply.json })
  }

  /** Takes every call batch waiting in the slot's call ring. */
  const takeCalls = (slot: Slot): void => {
    const ring = slot.calls
    if (ring === undefined) return
    for (;;) {
      const record = ringRead(ring)
      if (record === undefined) return
      const active = slot.active
      if (active !== undefined && active.id === record.a) onCalls(slot, active, record.text)
    }
  }

  /**
   * Waits (without keeping the process alive) for the worker to bump counter 1, then takes the calls.
   * The counter is read before the ring, so calls written in between end the next wait at once.
   */
  const watch = (slot: Slot): void => {
    const wake = (): void => {
      for (;;) {
        if (slot.dead) return
        const seen = Atomics.load(slot.signal, 1)
        try {
          takeCalls(slot)
        } catch (error) {
          // Never leave a run waiting on a watcher that died: the worker goes, the run fails typed.
          kill(slot, `the host-call bridge failed: ${String(error)}`)
          return
        }
        const waiting = Atomics.waitAsync(slot.signal, 1, seen)
        if (waiting.async) {
          void waiting.value.then(wake)
          return
        }
      }
    }
    wake()
  }

  /** Ends the wait of a discarded slot's watcher (it sees `dead` and stops). */
  const unwatch = (slot: Slot): void => {
    Atomics.add(slot.signal, 1, 1)
    Atomics.notify(slot.signal, 1)
  }

  const live = (): number => {
    let n = 0
    for (const s of slots) if (!s.dead) n++
    return n
  }

  const spawn = (): Slot => {
    const channel = new MessageChannel()
    const sharedCounter = new SharedArrayBuffer(8)
    const calls = bridgeBytes > 0 ? newRingBuffer(bridgeBytes) : undefined
    const replies = bridgeBytes > 0 ? newRingBuffer(bridgeBytes) : undefined
    const slot: Slot = {
      worker: undefined as unknown as Worker,
      inbox: channel.port1,
      signal: new Int32Array(sharedCounter),
      calls: calls ? ringOf(calls) : undefined,
      replies: replies ? ringOf(replies) : undefined,
      idle: false,
      started: false,
      primed: false,
      active: undefined,
      dead: false,
    }
    void wasmModule()
      .then((module) => {
        if (slot.dead) return
        if (closed) {
          slot.dead = true
          return
        }
        const worker = new Worker(WORKER_URL, {
          workerData: {
            wasmModule: module,
            maxMemoryBytes: maxMemoryBytes + 8 * 2 ** 20,
            inbox: channel.port2,
            signal: sharedCounter,
            calls,
            replies,
          },
          transferList: [channel.port2],
          // The worker's own JS heap holds logs and messages only; the engine lives in wasm memory.
          resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 8 },
          stdout: false,
          stderr: false,
        })
        ;(slot as { worker: Worker }).worker = worker
        worker.on("message", (message: FromWorker) => onMessage(slot, message))
        worker.on("error", (error) => kill(slot, `the worker failed: ${error.message}`))
        worker.on("exit", (code) => kill(slot, `the worker exited (code ${code})`))
        if (slot.calls !== undefined) watch(slot)
      })
      .catch((error: unknown) => {
        // The engine did not load or the thread did not start. No new worker is started in its place
        // (it would fail the same way); runs waiting for a worker fail rather than wait for one.
        const reason = `cannot start a QuickJS worker: ${String(error)}`
        slot.dead = true
        slots.delete(slot)
        slot.inbox.close()
        unwatch(slot)
        void slot.worker?.terminate()
        for (const active of takeQueued()) settle(active, new SandboxCrashed({ reason }))
      })
    slots.add(slot)
    return slot
  }

  const kill = (slot: Slot, reason: string): void => {
    if (slot.dead) return
    slot.dead = true
    slot.idle = false
    slots.delete(slot)
    const active = slot.active
    slot.active = undefined
    if (active) settle(active, new SandboxCrashed({ reason }))
    slot.inbox.close()
    unwatch(slot)
    void slot.worker?.terminate()
    // A worker that dies before it ever got ready would die again: after three in a row, stop starting
    // new ones and fail the runs waiting for one.
    if (!slot.started && ++failedStarts >= 3) {
      for (const waiting of takeQueued())
        settle(waiting, new SandboxCrashed({ reason: `workers fail to start: ${reason}` }))
      return
    }
    refill()
  }

  /** Keeps `warmWorkers` started, and starts workers for queued runs up to `maxWorkers`. */
  const refill = (): void => {
    if (closed) return
    let n = live()
    let starting = 0
    for (const s of slots) if (!s.dead && !s.idle && s.active === undefined) starting++
    const waiting = startable()
    while (n < warm || (waiting > starting && n < maxWorkers)) {
      spawn()
      n++
      starting++
    }
  }

  const retire = (slot: Slot): void => {
    if (slot.dead) return
    slot.dead = true
    slot.idle = false
    slots.delete(slot)
    slot.active = undefined
    slot.inbox.close()
    unwatch(slot)
    void slot.worker.terminate()
    refill()
  }

  const callerOf = (key: string | undefined): Caller => {
    let caller = callers.get(key)
    if (caller === undefined) {
      caller = { key, queue: [], running: 0 }
      callers.set(key, caller)
    }
    return caller
  }

  const mayRun = (caller: Caller): boolean => caller.key === undefined || caller.running < maxRunsPerCaller

  const forget = (caller: Caller): void => {
    if (caller.running === 0 && caller.queue.length === 0 && callers.get(caller.key) === caller)
      callers.delete(caller.key)
  }

  /** Queued runs a worker could start now (callers' caps applied). */
  const startable = (): number => {
    let n = 0
    for (const caller of turns)
      n +=
        caller.key === undefined
          ? caller.queue.length
          : Math.min(caller.queue.length, Math.max(0, maxRunsPerCaller - caller.running))
    return n
  }

  /** Queues a run behind its caller's others; its wall-clock budget keeps running while it waits. */
  const enqueue = (active: Active, front = false): void => {
    const caller = active.caller
    if (front) caller.queue.unshift(active)
    else caller.queue.push(active)
    if (!turns.includes(caller)) turns.push(caller)
    clearTimeout(active.timer)
    active.timer = setTimeout(
      () => {
        if (active.settled || active.slot !== undefined) return
        settle(active, timeoutOf(active.limits.wallTimeMs, performance.now() - active.started))
      },
      Math.max(0, active.limits.wallTimeMs - (performance.now() - active.started)),
    )
  }

  const unqueue = (active: Active): void => {
    const caller = active.caller
    const i = caller.queue.indexOf(active)
    if (i < 0) return
    caller.queue.splice(i, 1)
    if (caller.queue.length === 0) {
      const t = turns.indexOf(caller)
      if (t >= 0) turns.splice(t, 1)
    }
  }

  /** Every queued run, taken out of the queues. */
  const takeQueued = (): Active[] => {
    const all = turns.flatMap((caller) => caller.queue.splice(0))
    turns.length = 0
    return all
  }

  /** The next queued run, round-robin over the callers that may run one; the caller goes to the back. */
  const takeNext = (): Active | undefined => {
    for (let i = 0; i < turns.length; i++) {
      const caller = turns[i]!
      if (!mayRun(caller)) continue
      const next = caller.queue.shift()!
      turns.splice(i, 1)
      if (caller.queue.length > 0) turns.push(caller)
      return next
    }
    return undefined
  }

  /** A worker became free: it takes the next queued run, or idles (not keeping the process alive). */
  const release = (slot: Slot): void => {
    if (slot.dead || slot.active) return
    const next = takeNext()
    if (next !== undefined) {
      start(slot, next)
      return
    }
    slot.idle = true
    slot.worker.unref()
  }

  /** Gives idle workers the queued runs that may start now (after a caller's running count dropped). */
  const schedule = (): void => {
    if (turns.length === 0) return
    for (const slot of slots) {
      if (!slot.idle || slot.dead) continue
      const next = takeNext()
      if (next === undefined) return
      start(slot, next)
    }
  }

  const settle = (active: Active, error: unknown, result?: SandboxRunResult): void => {
    if (active.settled) return
    active.settled = true
    clearTimeout(active.timer)
    unqueue(active)
    if (active.counted) {
      active.counted = false
      active.caller.running--
    }
    forget(active.caller)
    active.request.signal?.removeEventListener("abort", active.onAbort)
    active.abort.abort(error)
    if (result) active.resolve(result)
    else active.reject(error)
    if (!closed) schedule()
  }

  /**
   * Gives a run to a worker: an idle one with a prepared engine, else any idle one (its engine is being
   * prepared; the run waits in its inbox), else the queue.
   */
  const dispatch = (active: Active, front = false): void => {
    if (!mayRun(active.caller)) {
      enqueue(active, front)
      return
    }
    let fallback: Slot | undefined
    for (const slot of slots) {
      if (!slot.idle || slot.dead) continue
      if (slot.primed) {
        start(slot, active)
        return
      }
      fallback ??= slot
    }
    if (fallback !== undefined) {
      start(fallback, active)
      return
    }
    enqueue(active, front)
    refill()
  }

  const start = (slot: Slot, active: Active): void => {
    clearTimeout(active.timer)
    active.queuedMs = performance.now() - active.started
    // The budget counts from the request: the engine gets what is left of it.
    const left = Math.floor(active.limits.wallTimeMs - active.queuedMs)
    if (left < 1) {
      settle(active, timeoutOf(active.limits.wallTimeMs, active.queuedMs))
      release(slot)
      return
    }
    slot.idle = false
    slot.primed = false
    slot.active = active
    active.slot = slot
    active.counted = true
    active.caller.running++
    slot.worker.ref()
    // The hard stop: the engine's interrupt handler (or the worker's own wait) should have ended the run
    // by now; a native loop that never reaches the handler ends here.
    active.timer = setTimeout(() => {
      if (active.settled || slot.active !== active) return
      settle(active, timeoutOf(active.limits.wallTimeMs, active.queuedMs))
      retire(slot)
    }, left + graceMs)
    post(slot, {
      type: "run",
      id: active.id,
      code: active.request.code,
      names: active.names,
      limits: left === active.limits.wallTimeMs ? active.limits : { ...active.limits, wallTimeMs: left },
    })
  }

  /** A batch of host calls (`[[callId, functionIndex, args], ...]`): each runs at once, concurrently. */
  const onCalls = (slot: Slot, active: Active, json: string): void => {
    let calls: unknown
    try {
      calls = JSON.parse(json)
    } catch {
      calls = undefined
    }
    if (!Array.isArray(calls)) {
      settle(active, new SandboxCrashed({ reason: "the worker sent malformed host calls" }))
      retire(slot)
      return
    }
    for (const call of calls) {
      const [callId, index, args] = Array.isArray(call) ? call : []
      if (typeof callId !== "number" || typeof index !== "number") {
        settle(active, new SandboxCrashed({ reason: "the worker sent malformed host calls" }))
        retire(slot)
        return
      }
      void hostCall(slot, active, callId, active.nameList[index], args)
    }
  }

  const onMessage = (slot: Slot, message: FromWorker): void => {
    // Calls the worker wrote to the ring before sending this message come first (a `done` must not
    // overtake the calls made just before it).
    takeCalls(slot)
    if (message.type === "ready") {
      slot.started = true
      failedStarts = 0
      if (slot.active !== undefined) return
      slot.primed = true
      if (!slot.idle) release(slot)
      return
    }
    const active = slot.active
    if (!active || active.id !== message.id) return
    if (message.type === "calls") {
      onCalls(slot, active, message.json)
      return
    }
    if (message.type === "bounce") {
      // The run never started there: it goes to another worker (first in its caller's turn), and this
      // one is discarded.
      slot.active = undefined
      active.slot = undefined
      clearTimeout(active.timer)
      if (active.counted) {
        active.counted = false
        active.caller.running--
      }
      retire(slot)
      if (!active.settled) dispatch(active, true)
      return
    }
    // done
    slot.active = undefined
    if (message.failure)
      settle(active, failureOf(message.failure, active.limits, message.logs, active.queuedMs))
    else {
      let result: unknown = null
      try {
        result = JSON.parse(message.result ?? "null")
      } catch {}
      settle(active, undefined, {
        result,
        logs: message.logs,
        hostCalls: message.hostCalls,
        durationMs: performance.now() - active.started,
      })
    }
    if (message.retire) retire(slot)
    else release(slot)
  }

  const hostCall = async (
    slot: Slot,
    active: Active,
    callId: number,
    name: string | undefined,
    args: unknown,
  ): Promise<void> => {
    const functions = active.request.functions
    let reply: Reply
    if (
      name === undefined ||
      functions === undefined ||
      !Object.hasOwn(functions, name) ||
      !Array.isArray(args)
    ) {
      reply = errorReply(callId, { name: "ReferenceError", message: `no host function "${String(name)}"` })
    } else {
      try {
        reply = valueReply(callId, await functions[name]!(args, { signal: active.abort.signal }))
      } catch (error) {
        let errorJson: Record<string, unknown>
        try {
          errorJson = JSON.parse(JSON.stringify(hostErrorJson(error))) as Record<string, unknown>
        } catch {
          errorJson = { name: "Error", message: "the host function failed" }
        }
        reply = errorReply(callId, errorJson)
      }
    }
    if (active.settled || slot.active !== active || slot.dead) return
    answer(slot, active.id, reply)
  }

  for (let i = 0; i < warm; i++) spawn()

  return {
    name: "quickjs",
    run: (request) => {
      if (closed) return Promise.reject(new SandboxCrashed({ reason: "the sandbox is closed" }))
      if (request.signal?.aborted)
        return Promise.reject(new Cancelled({ toolId: "sandbox", reason: "cancelled before start" }))
      const merged = { ...defaults, ...request.limits }
      const limits: RunLimits = {
        wallTimeMs: merged.wallTimeMs,
        memoryBytes: Math.min(merged.memoryBytes, maxMemoryBytes),
        maxOutputBytes: merged.maxOutputBytes,
        maxHostCalls: merged.maxHostCalls,
        stackBytes: merged.stackBytes,
        cpuTimeMs: merged.cpuTimeMs ?? 0,
        maxArgumentBytes: merged.maxArgumentBytes,
      }
      const caller = callerOf(request.caller)
      const mustWait =
        caller.queue.length > 0 || !mayRun(caller) || ![...slots].some((slot) => slot.idle && !slot.dead)
      if (caller.key !== undefined && mustWait && caller.queue.length >= maxQueuedPerCaller) {
        forget(caller)
        return Promise.reject(new SandboxLimit({ limit: "queue", max: maxQueuedPerCaller }))
      }
      const nameList = request.functions ? Object.keys(request.functions) : []
      return new Promise<SandboxRunResult>((resolve, reject) => {
        const started = performance.now()
        const active: Active = {
          id: ++nextId,
          request,
          caller,
          nameList,
          names: JSON.stringify(nameList),
          limits,
          abort: new AbortController(),
          resolve,
          reject,
          started,
          slot: undefined,
          queuedMs: 0,
          counted: false,
          settled: false,
          onAbort: () => {
            if (active.settled) return
            settle(active, new Cancelled({ toolId: "sandbox", reason: "the run was cancelled" }))
            const slot = active.slot
            if (slot && slot.active === active) retire(slot)
          },
        }
        request.signal?.addEventListener("abort", active.onAbort, { once: true })
        dispatch(active)
      })
    },
    close: async () => {
      if (closed) return
      closed = true
      for (const active of takeQueued())
        settle(active, new SandboxCrashed({ reason: "the sandbox is closed" }))
      await Promise.all(
        [...slots].map(async (slot) => {
          slot.dead = true
          const active = slot.active
          slot.active = undefined
          if (active) settle(active, new SandboxCrashed({ reason: "the sandbox was closed" }))
          slot.inbox.close()
          unwatch(slot)
          await slot.worker?.terminate()
        }),
      )
      slots.clear()
    },
  }
}
