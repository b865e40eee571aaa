/**
 * The default sandbox: QuickJS compiled to WebAssembly, run in worker threads.
 *
 * Each worker holds one QuickJS module on a WebAssembly.Memory with a fixed maximum (the memory cap the
 * engine cannot exceed, whatever it allocates) and runs one program at a time in a fresh runtime and
 * context. The engine's interrupt handler stops a program at its deadline; a native loop that never
 * reaches it is stopped by terminating the worker (hard wall-clock stop). A worker is discarded after a
 * timeout, a memory failure, any error escaping the WebAssembly, or when its memory grew near the cap.
 *
 * @since 0.2.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
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

/**
 * Options of {@link quickJsSandbox}.
 *
 * @since 0.2.0
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
  readonly limits: RunLimits
  readonly abort: AbortController
  readonly resolve: (result: SandboxRunResult) => void
  readonly reject: (error: unknown) => void
  readonly started: number
  timer?: ReturnType<typeof setTimeout>
  settled: boolean
}

interface Slot {
  readonly worker: Worker
  readonly ready: Promise<void>
  active: Active | undefined
  dead: boolean
}

const failureOf = (wire: WireFailure, limits: RunLimits, logs: readonly string[]): unknown => {
  const withLogs = logs.length > 0 ? { logs } : {}
  switch (wire.tag) {
    case "SandboxTimeout":
      return new SandboxTimeout({ timeoutMs: limits.wallTimeMs, ...withLogs })
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

/** The program's own frames only (never the prelude's), at most 12 lines: a stack overflow repeats one frame thousands of times. */
const trimStack = (stack: string): string => {
  const lines = stack.split("\n").filter((l) => l.trim() !== "" && !l.includes("toolplane-prelude.js"))
  return lines.length > 12
    ? [...lines.slice(0, 12), `    ... ${lines.length - 12} more frames`].join("\n")
    : lines.join("\n")
}

const replyJson = (value: unknown): string => {
  try {
    return JSON.stringify({ ok: true, value: value === undefined ? null : value })
  } catch (error) {
    return JSON.stringify({
      ok: false,
      error: { name: "TypeError", message: `the host function's result is not JSON data: ${String(error)}` },
    })
  }
}

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
 * @since 0.2.0
 */
export const quickJsSandbox = (options: QuickJsSandboxOptions = {}): Sandbox => {
  const maxWorkers = Math.max(1, options.maxWorkers ?? 2)
  const warm = Math.min(maxWorkers, Math.max(0, options.warmWorkers ?? 1))
  const maxMemoryBytes = options.maxMemoryBytes ?? defaultSandboxLimits.memoryBytes
  const graceMs = options.graceMs ?? 50
  const defaults = { ...defaultSandboxLimits, ...options.limits }
  const slots = new Set<Slot>()
  const waiting: Array<(slot: Slot | undefined) => void> = []
  let nextId = 0
  let closed = false

  const spawn = (): Slot => {
    let markReady!: () => void
    let markFailed!: (error: unknown) => void
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve
      markFailed = reject
    })
    ready.catch(() => {})
    const slot: Slot = {
      worker: undefined as unknown as Worker,
      ready,
      active: undefined,
      dead: false,
    }
    void wasmModule().then(
      (module) => {
        if (closed) {
          slot.dead = true
          markFailed(new SandboxCrashed({ reason: "the sandbox is closed" }))
          return
        }
        const worker = new Worker(WORKER_URL, {
          workerData: { wasmModule: module, maxMemoryBytes: maxMemoryBytes + 8 * 2 ** 20 },
          // The worker's own JS heap holds logs and messages only; the engine lives in wasm memory.
          resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 8 },
          stdout: false,
          stderr: false,
        })
        ;(slot as { worker: Worker }).worker = worker
        worker.on("message", (message: FromWorker) => onMessage(slot, message, markReady))
        worker.on("error", (error) => kill(slot, `the worker failed: ${error.message}`, markFailed))
        worker.on("exit", (code) => kill(slot, `the worker exited (code ${code})`, markFailed))
      },
      (error: unknown) => {
        slot.dead = true
        markFailed(new SandboxCrashed({ reason: `cannot load QuickJS: ${String(error)}` }))
      },
    )
    slots.add(slot)
    return slot
  }

  const kill = (slot: Slot, reason: string, markFailed: (error: unknown) => void): void => {
    if (slot.dead) return
    slot.dead = true
    slots.delete(slot)
    markFailed(new SandboxCrashed({ reason }))
    const active = slot.active
    slot.active = undefined
    if (active) settle(active, new SandboxCrashed({ reason }))
    void slot.worker?.terminate()
    refill()
  }

  const refill = (): void => {
    if (closed) return
    let live = [...slots].filter((s) => !s.dead).length
    while (live < warm || (waiting.length > 0 && live < maxWorkers)) {
      const slot = spawn()
      live++
      if (waiting.length > 0)
        void slot.ready.then(
          () => release(slot),
          () => {},
        )
    }
  }

  const retire = (slot: Slot): void => {
    if (slot.dead) return
    slot.dead = true
    slots.delete(slot)
    slot.active = undefined
    void slot.worker.terminate()
    refill()
  }

  const release = (slot: Slot): void => {
    if (slot.dead || slot.active) return
    const next = waiting.shift()
    if (next) next(slot)
    else slot.worker.unref()
  }

  const acquire = async (signal: AbortSignal | undefined): Promise<Slot> => {
    let failures = 0
    for (;;) {
      const idle = [...slots].find((s) => !s.dead && s.active === undefined && !reserved.has(s))
      const slot =
        idle ??
        ([...slots].filter((s) => !s.dead).length < maxWorkers
          ? spawn()
          : await new Promise<Slot>((resolve, reject) => {
              const wake = (s: Slot | undefined) => {
                signal?.removeEventListener("abort", onAbort)
                if (s) resolve(s)
                else reject(new SandboxCrashed({ reason: "the sandbox is closed" }))
              }
              const onAbort = () => {
                const i = waiting.indexOf(wake)
                if (i >= 0) waiting.splice(i, 1)
                reject(new Cancelled({ toolId: "sandbox", reason: "cancelled while waiting for a worker" }))
              }
              signal?.addEventListener("abort", onAbort, { once: true })
              waiting.push(wake)
            }))
      reserved.add(slot)
      try {
        await slot.ready
      } catch (error) {
        reserved.delete(slot)
        if (closed) throw new SandboxCrashed({ reason: "the sandbox is closed" })
        // A worker that cannot start (engine fails to load, thread limits) is not retried forever.
        if (++failures >= 3) throw error
        continue
      } finally {
        reserved.delete(slot)
      }
      if (!slot.dead && slot.active === undefined) return slot
    }
  }
  const reserved = new Set<Slot>()

  const settle = (active: Active, error: unknown, result?: SandboxRunResult): void => {
    if (active.settled) return
    active.settled = true
    clearTimeout(active.timer)
    active.abort.abort(error)
    if (result) active.resolve(result)
    else active.reject(error)
  }

  const onMessage = (slot: Slot, message: FromWorker, markReady: () => void): void => {
    if (message.type === "ready") {
      if (slot.active === undefined) slot.worker.unref()
      markReady()
      return
    }
    const active = slot.active
    if (!active || active.id !== message.id) return
    if (message.type === "call") {
      void hostCall(slot, active, message.callId, message.name, message.json)
      return
    }
    // done
    slot.active = undefined
    if (message.failure) settle(active, failureOf(message.failure, active.limits, message.logs))
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
    name: string,
    json: string,
  ): Promise<void> => {
    const fn = active.request.functions?.[name]
    let reply: string
    if (fn === undefined || !Object.hasOwn(active.request.functions ?? {}, name)) {
      reply = JSON.stringify({
        ok: false,
        error: { name: "ReferenceError", message: `no host function "${name}"` },
      })
    } else {
      try {
        const args = JSON.parse(json) as unknown[]
        reply = replyJson(await fn(args, { signal: active.abort.signal }))
      } catch (error) {
        let errorJson: Record<string, unknown>
        try {
          errorJson = JSON.parse(JSON.stringify(hostErrorJson(error))) as Record<string, unknown>
        } catch {
          errorJson = { name: "Error", message: "the host function failed" }
        }
        reply = JSON.stringify({ ok: false, error: errorJson })
      }
    }
    if (active.settled || slot.active !== active || slot.dead) return
    slot.worker.postMessage({ type: "reply", id: active.id, callId, json: reply } satisfies ToWorker)
  }

  for (let i = 0; i < warm; i++) spawn()

  return {
    name: "quickjs",
    run: async (request) => {
      if (closed) throw new SandboxCrashed({ reason: "the sandbox is closed" })
      if (request.signal?.aborted)
        throw new Cancelled({ toolId: "sandbox", reason: "cancelled before start" })
      const merged = { ...defaults, ...request.limits }
      const limits: RunLimits = {
        wallTimeMs: merged.wallTimeMs,
        memoryBytes: Math.min(merged.memoryBytes, maxMemoryBytes),
        maxOutputBytes: merged.maxOutputBytes,
        maxHostCalls: merged.maxHostCalls,
        stackBytes: merged.stackBytes,
        cpuTimeMs: merged.cpuTimeMs ?? 0,
      }
      const slot = await acquire(request.signal)
      return new Promise<SandboxRunResult>((resolve, reject) => {
        const active: Active = {
          id: ++nextId,
          request,
          limits,
          abort: new AbortController(),
          resolve,
          reject,
          started: performance.now(),
          settled: false,
        }
        slot.active = active
        slot.worker.ref()
        // The hard stop: the engine's interrupt handler should have ended the run by now.
        active.timer = setTimeout(() => {
          if (active.settled) return
          settle(active, new SandboxTimeout({ timeoutMs: limits.wallTimeMs }))
          retire(slot)
        }, limits.wallTimeMs + graceMs)
        const onAbort = () => {
          if (active.settled) return
          settle(active, new Cancelled({ toolId: "sandbox", reason: "the run was cancelled" }))
          retire(slot)
        }
        request.signal?.addEventListener("abort", onAbort, { once: true })
        const names = Object.keys(request.functions ?? {})
        slot.worker.postMessage({
          type: "run",
          id: active.id,
          code: request.code,
          names,
          limits,
        } satisfies ToWorker)
      })
    },
    close: async () => {
      if (closed) return
      closed = true
      for (const wake of waiting.splice(0)) wake(undefined)
      await Promise.all(
        [...slots].map(async (slot) => {
          slot.dead = true
          const active = slot.active
          slot.active = undefined
          if (active) settle(active, new SandboxCrashed({ reason: "the sandbox was closed" }))
          await slot.worker?.terminate()
        }),
      )
      slots.clear()
    },
  }
}
