/**
 * The three engine calls a bridged host call makes (deliver an answer, run the job queue, drain the
 * outbox) through QuickJS's low-level functions instead of `quickjs-emscripten`'s handle API, which
 * allocates lifetimes, scopes and typed-array views per call: measured at 0.57x the engine time per
 * bridged call in one process (interleaved rounds). Same semantics as the handle API: every value
 * pointer is freed, exceptions are resolved and freed. `rawEngineOf` returns `undefined` when the
 * module does not expose what this needs (another `quickjs-emscripten` version): the worker then uses
 * the handle API. Only erasable TypeScript here: the worker runs the source directly when Node strips
 * the types.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core"

/** The low-level entry points used here (pointers are numbers into the module's memory). */
interface Ffi {
  QTS_NewString(ctx: number, chars: number): number
  QTS_NewFloat64(ctx: number, value: number): number
  QTS_Call(ctx: number, fn: number, thisValue: number, argc: number, argv: number): number
  QTS_ResolveException(ctx: number, value: number): number
  QTS_FreeValuePointer(ctx: number, value: number): void
  QTS_FreeValuePointerRuntime(rt: number, value: number): void
  QTS_ExecutePendingJob(rt: number, maxJobs: number, ctxOut: number): number
  QTS_GetString(ctx: number, value: number): number
  QTS_FreeCString(ctx: number, chars: number): void
  QTS_Dump(ctx: number, value: number): number
}

/** The Emscripten module's memory functions used here. */
interface EmModule {
  _malloc(bytes: number): number
  _free(pointer: number): void
  UTF8ToString(pointer: number): string
  HEAPU8: Uint8Array
}

const FFI_NAMES = [
  "QTS_NewString",
  "QTS_NewFloat64",
  "QTS_Call",
  "QTS_ResolveException",
  "QTS_FreeValuePointer",
  "QTS_FreeValuePointerRuntime",
  "QTS_ExecutePendingJob",
  "QTS_GetString",
  "QTS_FreeCString",
  "QTS_Dump",
] as const

/** A function's outcome: its string result, or its exception as `QTS_Dump` renders it. */
export type RawOutcome =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly dumped: unknown }

/** Fast engine calls bound to one context. */
export interface RawEngine {
  /** Calls `fn(number, string)`; an exception it throws (an interrupt, out of memory) is discarded. */
  callNumberString(fn: QuickJSHandle, n: number, text: string): void
  /** Calls `fn()`, which returns a string. */
  callForString(fn: QuickJSHandle): RawOutcome
  /** Runs every pending job; an exception a job throws is discarded (as with the handle API's result). */
  runJobs(): void
  /** Frees the scratch memory (the context itself is disposed by its owner). */
  dispose(): void
}

const encoder = new TextEncoder()

/** Fast engine calls for `ctx`, or `undefined` when the module lacks the low-level functions. */
export const rawEngineOf = (ctx: QuickJSContext, runtime: QuickJSRuntime): RawEngine | undefined => {
  const internals = ctx as unknown as {
    ffi?: Partial<Record<(typeof FFI_NAMES)[number], unknown>>
    module?: Partial<EmModule>
    ctx?: { value?: unknown }
  }
  const rtInternals = runtime as unknown as { rt?: { value?: unknown } }
  const ffiCandidate = internals.ffi
  const m = internals.module
  const ctxPtr = internals.ctx?.value
  const rtPtr = rtInternals.rt?.value
  if (
    ffiCandidate === undefined ||
    m === undefined ||
    typeof ctxPtr !== "number" ||
    typeof rtPtr !== "number" ||
    FFI_NAMES.some((name) => typeof ffiCandidate[name] !== "function") ||
    typeof m._malloc !== "function" ||
    typeof m._free !== "function" ||
    typeof m.UTF8ToString !== "function" ||
    !(m.HEAPU8 instanceof Uint8Array)
  )
    return undefined
  const ffi = ffiCandidate as unknown as Ffi
  const em = m as EmModule
  const undefinedPtr = ctx.undefined.value as unknown as number
  // Two argument slots and the job queue's context out-pointer.
  const scratch = em._malloc(12)
  if (scratch === 0) return undefined
  const argv = scratch
  const ctxOut = scratch + 8

  const outcome = (result: number): RawOutcome => {
    const error = ffi.QTS_ResolveException(ctxPtr, result)
    if (error !== 0) {
      ffi.QTS_FreeValuePointer(ctxPtr, result)
      const chars = ffi.QTS_Dump(ctxPtr, error)
      const dump = em.UTF8ToString(chars)
      ffi.QTS_FreeCString(ctxPtr, chars)
      ffi.QTS_FreeValuePointer(ctxPtr, error)
      let dumped: unknown
      try {
        dumped = JSON.parse(dump)
      } catch {
        dumped = dump
      }
      return { ok: false, dumped }
    }
    const chars = ffi.QTS_GetString(ctxPtr, result)
    const text = em.UTF8ToString(chars)
    ffi.QTS_FreeCString(ctxPtr, chars)
    ffi.QTS_FreeValuePointer(ctxPtr, result)
    return { ok: true, text }
  }

  return {
    callNumberString: (fn, n, text) => {
      const size = Buffer.byteLength(text) + 1
      const chars = em._malloc(size)
      // The engine's memory is at its cap: the worker treats this as a memory failure and is discarded.
      if (chars === 0) throw new Error("out of memory: cannot allocate an answer in the engine")
      const heap = em.HEAPU8
      encoder.encodeInto(text, heap.subarray(chars, chars + size - 1))
      heap[chars + size - 1] = 0
      const str = ffi.QTS_NewString(ctxPtr, chars)
      em._free(chars)
      const failed = ffi.QTS_ResolveException(ctxPtr, str)
      if (failed !== 0) {
        ffi.QTS_FreeValuePointer(ctxPtr, failed)
        ffi.QTS_FreeValuePointer(ctxPtr, str)
        throw new Error("out of memory: cannot allocate an answer in the engine")
      }
      const num = ffi.QTS_NewFloat64(ctxPtr, n)
      const slots = new Int32Array(em.HEAPU8.buffer, argv, 2)
      slots[0] = num
      slots[1] = str
      const result = ffi.QTS_Call(ctxPtr, fn.value as unknown as number, undefinedPtr, 2, argv)
      const error = ffi.QTS_ResolveException(ctxPtr, result)
      if (error !== 0) ffi.QTS_FreeValuePointer(ctxPtr, error)
      ffi.QTS_FreeValuePointer(ctxPtr, result)
      ffi.QTS_FreeValuePointer(ctxPtr, str)
      ffi.QTS_FreeValuePointer(ctxPtr, num)
    },
    callForString: (fn) => outcome(ffi.QTS_Call(ctxPtr, fn.value as unknown as number, undefinedPtr, 0, 0)),
    runJobs: () => {
      ffi.QTS_FreeValuePointerRuntime(rtPtr, ffi.QTS_ExecutePendingJob(rtPtr, -1, ctxOut))
    },
    dispose: () => em._free(scratch),
  }
}
