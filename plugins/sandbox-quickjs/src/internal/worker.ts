/**
 * The worker thread that runs programs: one QuickJS WebAssembly module per worker, instantiated on a
 * WebAssembly.Memory with a fixed maximum (the hard memory cap), one fresh runtime + context per run.
 *
 * The worker never returns to its event loop once started: it blocks in `Atomics.wait` on a shared
 * counter and reads what the parent sent synchronously: host-call answers from a shared ring, runs and
 * aborts (and answers too large for the ring) from its inbox port (`receiveMessageOnPort`). The parent
 * writes, then bumps the counter, which wakes the worker at once: no event-loop hop on this side. Host
 * calls leave through a second ring (the parent waits on a second counter with `Atomics.waitAsync`), or
 * as a message when they do not fit. Only erasable TypeScript and package imports here: Node strips the
 * types when the sources run directly (hence the `.ts` import of the ring).
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads"
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from "quickjs-emscripten-core"
import type { FromWorker, RunLimits, ToWorker } from "./protocol.js"
import { type RawEngine, rawEngineOf } from "./rawEngine.ts"
import { type Ring, ringOf, ringRead, ringWrite } from "./ring.ts"

const port = parentPort!
const data = workerData as {
  wasmModule: WebAssembly.Module
  maxMemoryBytes: number
  inbox: MessagePort
  signal: SharedArrayBuffer
  /** The host-call ring (this worker writes) and the answer ring (it reads); absent: messages only. */
  calls: SharedArrayBuffer | undefined
  replies: SharedArrayBuffer | undefined
}
const inbox = data.inbox
/**
 * Slot 0: bumped by the parent after each answer or message it sends; slot 1: bumped by this worker
 * after writing host calls to the call ring.
 */
const signal = new Int32Array(data.signal)
const callRing: Ring | undefined = data.calls ? ringOf(data.calls) : undefined
const replyRing: Ring | undefined = data.replies ? ringOf(data.replies) : undefined
const PAGE = 65536
const memory = new WebAssembly.Memory({
  initial: Math.min(256, Math.ceil(data.maxMemoryBytes / PAGE)),
  maximum: Math.ceil(data.maxMemoryBytes / PAGE),
})
const module = await newQuickJSWASMModuleFromVariant(
  newVariant(releaseSync, {
    wasmModule: data.wasmModule,
    wasmMemory: memory,
    // The engine's own diagnostics (e.g. a failed assertion while freeing a runtime after an
    // out-of-memory run) are not the host's output; the worker is discarded in that case anyway.
    emscriptenModule: { print: () => {}, printErr: () => {} } as object,
  }),
)

type Stop = "timeout" | "output" | "calls" | "cpu" | "arguments" | "aborted"

interface Run {
  readonly id: number
  readonly engine: Engine
  readonly limits: RunLimits
  readonly deadline: number
  readonly logs: string[]
  outputBytes: number
  /** Host calls the program made (drained from its outbox), and those not answered yet. */
  hostCalls: number
  outstanding: number
  stop: Stop | undefined
  /** Milliseconds spent running so far, and when the current slice started. */
  cpuMs: number
  sliceStart: number | undefined
  outcome: { ok: true; json: string } | { ok: false; json: string } | undefined
  ended: boolean
}

let current: Run | undefined

const send = (message: FromWorker): void => port.postMessage(message)

const PRELUDE = `(() => {
  const host = globalThis.__toolplane_host
  delete globalThis.__toolplane_host
  const { log, done, limit, bytes } = host
  const stringify = JSON.stringify
  const PromiseCtor = Promise
  const apply = Reflect.apply
  // Pending calls by id: a prototype-less object, so no property the program defines can intercept it.
  const waiting = Object.create(null)
  let outbox = "", queued = 0, made = 0, maxCalls = 0, maxArgBytes = 0, nextId = 0
  const parse = JSON.parse
  const then = Promise.prototype.then
  // The errors a failed host call rejects with are built from these, captured before the program runs:
  // no constructor runs (no stack hook) and no property is set through the program's accessors, so a
  // program that froze or poisoned the intrinsics still gets its errors.
  const ErrorProto = Error.prototype
  const TypeErrorCtor = TypeError
  const create = Object.create
  const define = Object.defineProperty
  const ownKeys = Object.keys
  const str = String
  const format = (v) => {
    if (typeof v === "string") return v
    try { const s = stringify(v); return s === undefined ? str(v) : s } catch { try { return str(v) } catch { return "[unprintable]" } }
  }
  const line = (args) => { let out = ""; for (let i = 0; i < args.length; i++) out += (i ? " " : "") + format(args[i]); return out }
  globalThis.console = {
    log: (...a) => { log("", line(a)) },
    info: (...a) => { log("[info] ", line(a)) },
    debug: (...a) => { log("[debug] ", line(a)) },
    warn: (...a) => { log("[warn] ", line(a)) },
    error: (...a) => { log("[error] ", line(a)) },
  }
  // A host call is queued as JSON text in the outbox; the host drains the outbox after each turn of the
  // job queue (one engine call for all calls made in that turn) and delivers each answer by id.
  const bridge = (index, name) => (...args) => new PromiseCtor((resolve, reject) => {
    let json
    try { json = stringify(args) } catch (e) { throw new TypeErrorCtor("arguments of " + name + " are not JSON data: " + (e && e.message)) }
    if (typeof json !== "string") throw new TypeErrorCtor("arguments of " + name + " are not JSON data")
    // UTF-8 takes at least one byte per UTF-16 unit and at most three: the host counts exactly only
    // when the text might be over the cap.
    const units = json.length
    if (units > maxArgBytes || (units * 3 > maxArgBytes && bytes(json) > maxArgBytes)) { limit(1); return }
    if (++made > maxCalls) { limit(0); return }
    const id = ++nextId
    outbox += (queued++ === 0 ? "[" : ",") + "[" + id + "," + index + "," + json + "]"
    waiting[id] = [resolve, reject]
  })
  const drain = () => {
    if (queued === 0) return ""
    const text = queued + "|" + outbox + "]"
    outbox = ""
    queued = 0
    return text
  }
  // An answer: a positive id with the value's JSON, or the negated id with the error's JSON.
  const deliver = (signed, json) => {
    const id = signed < 0 ? -signed : signed
    const w = waiting[id]
    if (w === undefined) return
    delete waiting[id]
    let value
    try { value = parse(json) } catch {
      // Too deep for this engine's stack (or its memory) where the host's JSON coped: the call still
      // settles, as a catchable error.
      w[1](failure({ name: "RangeError", message: "the host's answer is too large or too deeply nested to read" }))
      return
    }
    if (signed > 0) w[0](value)
    else w[1](failure(value))
  }
  const failure = (value) => {
    const e = create(ErrorProto)
    if (value === null || typeof value !== "object") return e
    const keys = ownKeys(value)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]
      define(e, key, { value: value[key], writable: true, enumerable: key !== "message", configurable: true })
    }
    return e
  }
  const describe = (e) => {
    try {
      const isObj = e !== null && (typeof e === "object" || typeof e === "function")
      return stringify({
        name: isObj && e.name !== undefined ? str(e.name) : "Error",
        message: isObj ? str(e.message) : str(e),
        stack: isObj && typeof e.stack === "string" ? e.stack : undefined,
      })
    } catch { return '{"name":"Error","message":"the program threw a value that cannot be described"}' }
  }
  const finish = (promise) => apply(then, promise, [(value) => {
    let json
    try { json = stringify(value === undefined ? null : value) } catch (e) { done(false, describe(e)); return }
    done(true, json === undefined ? "null" : json)
  }, (error) => { done(false, describe(error)) }])
  const setup = (names, max, maxArg) => {
    maxCalls = max
    maxArgBytes = maxArg
    let i = 0
    for (const name of parse(names)) globalThis[name] = bridge(i++, name)
    return finish
  }
  return [setup, drain, deliver]
})()`

const errorJson = (name: string, message: string): string => JSON.stringify({ name, message })

interface Engine {
  readonly runtime: QuickJSRuntime
  readonly ctx: QuickJSContext
  /** Guest functions from the prelude: `setup(namesJson, maxCalls) => finish`, `drain() => "n|[[id, fn, args], ...]"` (or ""), `deliver(id, replyJson)`. */
  readonly setup: QuickJSHandle
  readonly drain: QuickJSHandle
  readonly deliver: QuickJSHandle
  /** The fast path for the per-call engine calls; `undefined`: the handle API. */
  readonly raw: RawEngine | undefined
  run: Run | undefined
}

/** A runtime + context with the prelude evaluated, made while idle so a run does not wait for it. */
let spare: Engine | undefined

const prepare = (): Engine => {
  const runtime = module.newRuntime()
  const ctx = runtime.newContext()
  const none = undefined as unknown as QuickJSHandle
  const engine: Engine = {
    runtime,
    ctx,
    setup: none,
    drain: none,
    deliver: none,
    raw: undefined,
    run: undefined,
  }
  runtime.setInterruptHandler(() => {
    const run = engine.run
    if (!run) return false
    if (run.stop !== undefined) return true
    if (Date.now() > run.deadline) {
      run.stop = "timeout"
      return true
    }
    if (
      run.limits.cpuTimeMs > 0 &&
      run.sliceStart !== undefined &&
      run.cpuMs + performance.now() - run.sliceStart > run.limits.cpuTimeMs
    ) {
      run.stop = "cpu"
      return true
    }
    return false
  })
  const host = ctx.newObject()
  const limit = ctx.newFunction("limit", (kindH: QuickJSHandle) => {
    const run = engine.run
    if (run && run.stop === undefined) run.stop = ctx.getNumber(kindH) === 1 ? "arguments" : "calls"
  })
  const bytes = ctx.newFunction("bytes", (textH: QuickJSHandle) =>
    ctx.newNumber(Buffer.byteLength(ctx.getString(textH))),
  )
  const log = ctx.newFunction("log", (prefixH: QuickJSHandle, textH: QuickJSHandle) => {
    const run = engine.run
    if (!run || run.stop !== undefined) return
    const line = ctx.getString(prefixH) + ctx.getString(textH)
    run.outputBytes += Buffer.byteLength(line) + 1
    if (run.outputBytes > run.limits.maxOutputBytes) {
      run.stop = "output"
      return
    }
    run.logs.push(line)
  })
  const done = ctx.newFunction("done", (okH: QuickJSHandle, jsonH: QuickJSHandle) => {
    const run = engine.run
    if (!run || run.outcome !== undefined) return
    const json = ctx.typeof(jsonH) === "string" ? ctx.getString(jsonH) : errorJson("Error", "bad outcome")
    run.outcome = { ok: ctx.dump(okH) === true, json }
  })
  ctx.setProp(host, "limit", limit)
  ctx.setProp(host, "log", log)
  ctx.setProp(host, "done", done)
  ctx.setProp(host, "bytes", bytes)
  ctx.setProp(ctx.global, "__toolplane_host", host)
  for (const h of [host, limit, log, done, bytes]) h.dispose()
  const prelude = ctx.evalCode(PRELUDE, "toolplane-prelude.js")
  if (prelude.error) {
    prelude.error.dispose()
    throw new Error("the sandbox prelude failed")
  }
  const parts = engine as {
    setup: QuickJSHandle
    drain: QuickJSHandle
    deliver: QuickJSHandle
    raw: RawEngine | undefined
  }
  parts.setup = ctx.getProp(prelude.value, 0)
  parts.drain = ctx.getProp(prelude.value, 1)
  parts.deliver = ctx.getProp(prelude.value, 2)
  parts.raw = rawEngineOf(ctx, runtime)
  prelude.value.dispose()
  return engine
}

/** What the parent sent, if anything is there now: an answer from the ring first, then the inbox. */
const poll = (): ToWorker | undefined => {
  if (replyRing !== undefined) {
    const record = ringRead(replyRing)
    if (record !== undefined)
      return { type: "reply", id: record.a, callId: record.b, json: record.text } satisfies ToWorker
  }
  const received = receiveMessageOnPort(inbox)
  return received ? (received.message as ToWorker) : undefined
}

/**
 * The next message from the parent, waiting for it until `deadline` (`Date.now()` ms; `Infinity`: no
 * deadline); `undefined` when the deadline passed first. The counter is read before the ring and the
 * inbox, so anything sent between the reads wakes the wait at once.
 */
const nextMessage = (deadline: number): ToWorker | undefined => {
  for (;;) {
    const seen = Atomics.load(signal, 0)
    const message = poll()
    if (message !== undefined) return message
    const left = deadline - Date.now()
    if (left <= 0) return undefined
    Atomics.wait(signal, 0, seen, left === Infinity ? undefined : left)
  }
}

/** Set when tearing down a finished run's engine failed: this module is no longer trustworthy. */
let broken: string | undefined

const startRun = (message: Extract<ToWorker, { type: "run" }>): Run | undefined => {
  const { limits } = message
  const engine = spare ?? prepare()
  spare = undefined
  const { runtime, ctx } = engine
  runtime.setMemoryLimit(limits.memoryBytes)
  runtime.setMaxStackSize(limits.stackBytes)
  const run: Run = {
    id: message.id,
    engine,
    limits,
    deadline: Date.now() + limits.wallTimeMs,
    logs: [],
    outputBytes: 0,
    hostCalls: 0,
    outstanding: 0,
    stop: undefined,
    cpuMs: 0,
    sliceStart: performance.now(),
    outcome: undefined,
    ended: false,
  }
  current = run
  engine.run = run
  const names = ctx.newString(message.names)
  const max = ctx.newNumber(limits.maxHostCalls)
  const maxArg = ctx.newNumber(limits.maxArgumentBytes)
  const installed = ctx.callFunction(engine.setup, ctx.undefined, names, max, maxArg)
  names.dispose()
  max.dispose()
  maxArg.dispose()
  if (installed.error) {
    installed.error.dispose()
    finish(run, { kind: "crashed", reason: "the sandbox prelude failed" })
    return undefined
  }
  const finishHandle = installed.value
  const program = ctx.evalCode(`(async () => {${message.code}\n})()`, "program.js")
  if (program.error) {
    const described = describeHandle(ctx, program.error)
    program.error.dispose()
    finishHandle.dispose()
    if (run.stop !== undefined) {
      finish(run, { kind: "stopped" })
      return undefined
    }
    run.outcome = { ok: false, json: described }
    finish(run, { kind: "outcome" })
    return undefined
  }
  const attached = ctx.callFunction(finishHandle, ctx.undefined, program.value)
  program.value.dispose()
  finishHandle.dispose()
  if (attached.error) attached.error.dispose()
  else attached.value.dispose()
  return run
}

/**
 * Runs a program to its end: run queued jobs; while host calls are pending, block until the parent
 * answers one (or aborts, or the deadline passes), settle it inside the engine, and run again.
 */
const runToEnd = (message: Extract<ToWorker, { type: "run" }>): void => {
  const run = startRun(message)
  if (run === undefined) return
  while (!pump(run)) {
    let next = nextMessage(run.deadline)
    if (next === undefined) {
      run.stop = "timeout"
      finish(run, { kind: "stopped" })
      return
    }
    // Everything already there is taken before the job queue runs again: answers that arrived together
    // (say, of a `Promise.all`) cost one turn of the job queue and one drain of the outbox.
    while (next !== undefined) {
      if (next.type === "abort" && next.id === run.id) {
        run.stop = next.reason
        finish(run, { kind: "stopped" })
        return
      }
      if (next.type === "reply" && next.id === run.id && run.outstanding > 0) {
        run.outstanding--
        deliver(run, next.callId, next.json)
      }
      // Anything else (a late reply or abort of an earlier run) is stale: ignored.
      next = poll()
    }
  }
}

/** Settles one pending host call inside the engine. */
const deliver = (run: Run, callId: number, text: string): void => {
  if (run.engine.raw !== undefined) {
    run.engine.raw.callNumberString(run.engine.deliver, callId, text)
    return
  }
  const { ctx } = run.engine
  const id = ctx.newNumber(callId)
  const json = ctx.newString(text)
  const delivered = ctx.callFunction(run.engine.deliver, ctx.undefined, id, json)
  id.dispose()
  json.dispose()
  if (delivered.error) delivered.error.dispose()
  else delivered.value.dispose()
}

/** Drains the program's outbox and sends the calls in it to the parent, in one message. */
const sendCalls = (run: Run): void => {
  const text = drainOutbox(run)
  if (text === undefined || text === "") return
  const bar = text.indexOf("|")
  const count = Number(text.slice(0, bar))
  run.hostCalls += count
  if (run.hostCalls > run.limits.maxHostCalls) {
    run.stop = "calls"
    return
  }
  run.outstanding += count
  const json = text.slice(bar + 1)
  if (callRing !== undefined && ringWrite(callRing, run.id, count, json)) {
    Atomics.add(signal, 1, 1)
    Atomics.notify(signal, 1)
  } else send({ type: "calls", id: run.id, json })
}

/**
 * The calls the program queued since the last drain (`"n|[[id, fn, args], ...]"`, or `""`);
 * `undefined` when draining failed (interrupted: the handler has set `stop`; or out of memory building
 * the text, which becomes the run's outcome).
 */
const drainOutbox = (run: Run): string | undefined => {
  const { ctx, raw } = run.engine
  if (raw !== undefined) {
    const drained = raw.callForString(run.engine.drain)
    if (drained.ok) return drained.text
    if (run.stop === undefined) run.outcome ??= { ok: false, json: describeValue(drained.dumped) }
    return undefined
  }
  const drained = ctx.callFunction(run.engine.drain, ctx.undefined)
  if (drained.error) {
    const described = describeHandle(ctx, drained.error)
    drained.error.dispose()
    if (run.stop === undefined) run.outcome ??= { ok: false, json: described }
    return undefined
  }
  // The prelude's `drain` always returns a string (the program cannot reach or replace it).
  const text = ctx.getString(drained.value)
  drained.value.dispose()
  return text
}

/** Runs queued jobs, then decides whether the run is over (and ends it): `true` when it is. */
const pump = (run: Run): boolean => {
  if (run.ended) return true
  run.sliceStart ??= performance.now()
  if (run.engine.raw !== undefined) run.engine.raw.runJobs()
  else {
    const jobs = run.engine.runtime.executePendingJobs()
    if (jobs.error) jobs.error.dispose()
  }
  if (run.stop === undefined && run.outcome === undefined) sendCalls(run)
  run.cpuMs += performance.now() - run.sliceStart
  run.sliceStart = undefined
  if (run.stop === undefined && Date.now() > run.deadline) run.stop = "timeout"
  if (run.stop !== undefined) {
    finish(run, { kind: "stopped" })
    return true
  }
  if (run.outcome !== undefined) {
    finish(run, { kind: "outcome" })
    return true
  }
  if (run.outstanding === 0) {
    finish(run, { kind: "never" })
    return true
  }
  return false
}

type End = { kind: "outcome" } | { kind: "stopped" } | { kind: "never" } | { kind: "crashed"; reason: string }

const finish = (run: Run, end: End): void => {
  if (run.ended) return
  run.ended = true
  let message: FromWorker
  const base = { type: "done" as const, id: run.id, logs: run.logs, hostCalls: run.hostCalls }
  if (end.kind === "outcome" && run.outcome) {
    const bytes = run.outcome.ok ? Buffer.byteLength(run.outcome.json) : 0
    if (run.outcome.ok && run.outputBytes + bytes > run.limits.maxOutputBytes)
      message = { ...base, failure: { tag: "SandboxLimit", limit: "output" } }
    else if (run.outcome.ok) message = { ...base, result: run.outcome.json }
    else message = { ...base, failure: { tag: "SandboxError", json: run.outcome.json } }
  } else if (end.kind === "stopped") {
    message =
      run.stop === "timeout"
        ? { ...base, failure: { tag: "SandboxTimeout" } }
        : run.stop === "output" || run.stop === "calls" || run.stop === "cpu" || run.stop === "arguments"
          ? { ...base, failure: { tag: "SandboxLimit", limit: run.stop } }
          : { ...base, failure: { tag: "Cancelled" } }
  } else if (end.kind === "never") {
    message = {
      ...base,
      failure: {
        tag: "SandboxError",
        json: errorJson(
          "Error",
          "the program's promise never settled: nothing was left to run and no tool call was pending",
        ),
      },
    }
  } else {
    const reason = end.kind === "crashed" ? end.reason : "the run ended without an outcome"
    message = { ...base, failure: { tag: "SandboxCrashed", reason } }
  }
  // An out-of-memory error the program did not catch is a memory failure, not a program error. QuickJS
  // throws `null` when it cannot even allocate the error object.
  if (
    message.failure?.tag === "SandboxError" &&
    end.kind === "outcome" &&
    nearMemoryLimit(run, message.failure.json)
  )
    message = { ...base, failure: { tag: "SandboxMemory" } }
  // A module that hit a limit it cannot be trusted after, or whose memory grew close to its cap, is
  // discarded (the parent terminates the worker) rather than reused.
  const retire =
    run.stop === "timeout" ||
    message.failure?.tag === "SandboxMemory" ||
    message.failure?.tag === "SandboxCrashed" ||
    memory.buffer.byteLength > data.maxMemoryBytes * 0.75
  if (current === run) current = undefined
  // The answer leaves before the engine is torn down: the caller does not wait for the teardown.
  send({ ...message, retire })
  if (retire) return
  try {
    run.engine.setup.dispose()
    run.engine.drain.dispose()
    run.engine.deliver.dispose()
    run.engine.raw?.dispose()
    run.engine.ctx.dispose()
    run.engine.runtime.dispose()
  } catch (error) {
    broken = `tearing down the previous run's engine failed: ${String(error)}`
  }
}

const describeHandle = (ctx: QuickJSContext, handle: QuickJSHandle): string => {
  try {
    return describeValue(ctx.dump(handle))
  } catch {
    return errorJson("Error", "the program threw a value that cannot be described")
  }
}

/** An error's JSON (`{ name, message, stack }`) from its dumped form. */
const describeValue = (value: unknown): string => {
  try {
    if (typeof value === "object" && value !== null) {
      const v = value as { name?: unknown; message?: unknown; stack?: unknown }
      return JSON.stringify({
        name: typeof v.name === "string" ? v.name : "Error",
        message: typeof v.message === "string" ? v.message : String(v.message),
        stack: typeof v.stack === "string" ? v.stack : undefined,
      })
    }
    return errorJson("Error", String(value))
  } catch {
    return errorJson("Error", "the program threw a value that cannot be described")
  }
}

const nearMemoryLimit = (run: Run, json: string): boolean => {
  if (/out of memory/i.test(json)) return true
  try {
    const usage = run.engine.runtime.computeMemoryUsage()
    const size = run.engine.ctx.dump(usage) as { malloc_size?: number }
    usage.dispose()
    return (
      (size.malloc_size ?? 0) > run.limits.memoryBytes * 0.7 ||
      memory.buffer.byteLength > data.maxMemoryBytes * 0.9
    )
  } catch {
    return true
  }
}

const guarded = (f: () => void): void => {
  try {
    f()
  } catch (error) {
    // An error escaped the WebAssembly (abort, stack exhaustion): this module is no longer trustworthy.
    const run = current
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    if (run && !run.ended) {
      run.ended = true
      send({
        type: "done",
        id: run.id,
        logs: run.logs,
        hostCalls: run.hostCalls,
        failure: /memory|allocat/i.test(reason)
          ? { tag: "SandboxMemory" }
          : { tag: "SandboxCrashed", reason },
        retire: true,
      })
    }
    process.exit(1)
  }
}

/** The worker's whole life after start: prepare a spare engine while idle, wait for a run, run it. */
const serve = (): void => {
  for (;;) {
    if (broken === undefined && spare === undefined) {
      guarded(() => (spare = prepare()))
      send({ type: "ready" })
    }
    const message = nextMessage(Infinity)!
    if (message.type !== "run") continue // a late reply or abort of an earlier run
    if (broken !== undefined) {
      // This run has not started: the parent gives it to another worker and discards this one.
      send({ type: "bounce", id: message.id, reason: broken })
      continue
    }
    guarded(() => runToEnd(message))
  }
}

spare = prepare()
send({ type: "ready" })
// Leave module evaluation first, then block for good: the thread only ever wakes for the inbox.
setImmediate(serve)
