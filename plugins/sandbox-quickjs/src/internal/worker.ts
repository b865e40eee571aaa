/**
 * The worker thread that runs programs: one QuickJS WebAssembly module per worker, instantiated on a
 * WebAssembly.Memory with a fixed maximum (the hard memory cap), one fresh runtime + context per run.
 * Host calls leave as messages to the parent; their answers come back as JSON strings. Only erasable
 * TypeScript and package imports here: Node strips the types when the sources run directly.
 */
import { parentPort, workerData } from "node:worker_threads"
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
} from "quickjs-emscripten-core"
import type { FromWorker, RunLimits, ToWorker } from "./protocol.js"

const port = parentPort!
const data = workerData as { wasmModule: WebAssembly.Module; maxMemoryBytes: number }
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

type Stop = "timeout" | "output" | "calls" | "cpu" | "aborted"

interface Run {
  readonly id: number
  readonly engine: Engine
  readonly limits: RunLimits
  readonly deadline: number
  readonly pending: Map<number, QuickJSDeferredPromise>
  readonly logs: string[]
  outputBytes: number
  hostCalls: number
  nextCall: number
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
  const { call, log, done } = host
  const stringify = JSON.stringify
  const parse = JSON.parse
  const then = Promise.prototype.then
  const ErrorCtor = Error
  const assign = Object.assign
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
  const bridge = (name) => async (...args) => {
    let json
    try { json = stringify(args) } catch (e) { throw new TypeError("arguments of " + name + " are not JSON data: " + (e && e.message)) }
    const reply = parse(await call(name, json === undefined ? "[]" : json))
    if (reply.ok) return reply.value
    throw assign(new ErrorCtor(reply.error.message), reply.error)
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
  const finish = (promise) => then.call(promise, (value) => {
    let json
    try { json = stringify(value === undefined ? null : value) } catch (e) { done(false, describe(e)); return }
    done(true, json === undefined ? "null" : json)
  }, (error) => { done(false, describe(error)) })
  return (names) => { for (const name of parse(names)) globalThis[name] = bridge(name); return finish }
})()`

const errorJson = (name: string, message: string): string => JSON.stringify({ name, message })

interface Engine {
  readonly runtime: QuickJSRuntime
  readonly ctx: QuickJSContext
  /** Guest function `(namesJson) => finish`, installed by the prelude. */
  readonly setup: QuickJSHandle
  run: Run | undefined
}

/** A runtime + context with the prelude evaluated, made while idle so a run does not wait for it. */
let spare: Engine | undefined

const prepare = (): Engine => {
  const runtime = module.newRuntime()
  const ctx = runtime.newContext()
  const engine: Engine = { runtime, ctx, setup: undefined as unknown as QuickJSHandle, run: undefined }
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
  const call = ctx.newFunction("call", (nameH: QuickJSHandle, jsonH: QuickJSHandle) => {
    const deferred = ctx.newPromise()
    const run = engine.run
    if (!run || run.stop !== undefined) return deferred.handle
    if (++run.hostCalls > run.limits.maxHostCalls) {
      run.stop = "calls"
      return deferred.handle
    }
    const callId = ++run.nextCall
    run.pending.set(callId, deferred)
    send({ type: "call", id: run.id, callId, name: ctx.getString(nameH), json: ctx.getString(jsonH) })
    return deferred.handle
  })
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
  ctx.setProp(host, "call", call)
  ctx.setProp(host, "log", log)
  ctx.setProp(host, "done", done)
  ctx.setProp(ctx.global, "__toolplane_host", host)
  for (const h of [host, call, log, done]) h.dispose()
  const prelude = ctx.evalCode(PRELUDE, "toolplane-prelude.js")
  if (prelude.error) {
    prelude.error.dispose()
    throw new Error("the sandbox prelude failed")
  }
  ;(engine as { setup: QuickJSHandle }).setup = prelude.value
  return engine
}

const prepareSpare = (): void => {
  if (spare === undefined && current === undefined) guarded(() => (spare ??= prepare()))
}

const startRun = (message: Extract<ToWorker, { type: "run" }>): void => {
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
    pending: new Map(),
    logs: [],
    outputBytes: 0,
    hostCalls: 0,
    nextCall: 0,
    stop: undefined,
    cpuMs: 0,
    sliceStart: performance.now(),
    outcome: undefined,
    ended: false,
  }
  current = run
  engine.run = run
  const names = ctx.newString(JSON.stringify(message.names))
  const installed = ctx.callFunction(engine.setup, ctx.undefined, names)
  names.dispose()
  if (installed.error) {
    installed.error.dispose()
    finish(run, { kind: "crashed", reason: "the sandbox prelude failed" })
    return
  }
  const finishHandle = installed.value
  const program = ctx.evalCode(`(async () => {${message.code}\n})()`, "program.js")
  if (program.error) {
    const described = describeHandle(ctx, program.error)
    program.error.dispose()
    finishHandle.dispose()
    if (run.stop !== undefined) {
      finish(run, { kind: "stopped" })
      return
    }
    run.outcome = { ok: false, json: described }
    finish(run, { kind: "outcome" })
    return
  }
  const attached = ctx.callFunction(finishHandle, ctx.undefined, program.value)
  program.value.dispose()
  finishHandle.dispose()
  if (attached.error) attached.error.dispose()
  else attached.value.dispose()
  pump(run)
}

const describeHandle = (ctx: QuickJSContext, handle: QuickJSHandle): string => {
  try {
    const value = ctx.dump(handle) as { name?: unknown; message?: unknown; stack?: unknown } | unknown
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

/** Runs queued jobs, then decides whether the run is over. */
const pump = (run: Run): void => {
  if (run.ended) return
  run.sliceStart ??= performance.now()
  const jobs = run.engine.runtime.executePendingJobs()
  if (jobs.error) jobs.error.dispose()
  run.cpuMs += performance.now() - run.sliceStart
  run.sliceStart = undefined
  if (run.stop === undefined && Date.now() > run.deadline) run.stop = "timeout"
  if (run.stop !== undefined) {
    finish(run, { kind: "stopped" })
    return
  }
  if (run.outcome !== undefined) {
    finish(run, { kind: "outcome" })
    return
  }
  if (run.pending.size === 0)
    finish(run, {
      kind: "never",
    })
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
        : run.stop === "output" || run.stop === "calls" || run.stop === "cpu"
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
  for (const deferred of run.pending.values()) deferred.dispose()
  run.pending.clear()
  let retire = run.stop === "timeout" || message.failure?.tag === "SandboxMemory"
  try {
    run.engine.setup.dispose()
    run.engine.ctx.dispose()
    run.engine.runtime.dispose()
  } catch {
    retire = true
  }
  // A module whose memory grew close to its cap is discarded rather than reused fragmented.
  if (memory.buffer.byteLength > data.maxMemoryBytes * 0.75) retire = true
  if (current === run) current = undefined
  send({ ...message, retire })
  if (!retire) setImmediate(prepareSpare)
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

port.on("message", (message: ToWorker) =>
  guarded(() => {
    if (message.type === "run") {
      startRun(message)
      return
    }
    const run = current
    if (!run || run.id !== message.id || run.ended) return
    if (message.type === "reply") {
      const deferred = run.pending.get(message.callId)
      if (!deferred) return
      run.pending.delete(message.callId)
      const value = run.engine.ctx.newString(message.json)
      deferred.resolve(value)
      value.dispose()
      deferred.dispose()
      pump(run)
    } else if (message.type === "abort") {
      run.stop = message.reason
      finish(run, { kind: "stopped" })
    }
  }),
)

spare = prepare()
send({ type: "ready" })
