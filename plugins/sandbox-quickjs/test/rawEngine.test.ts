/**
 * The worker's fast path for the per-call engine calls (QuickJS's low-level functions instead of the
 * handle API): same results, exceptions resolved, nothing leaked, and a clean refusal when the module
 * does not expose what it needs.
 */
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSRuntime,
} from "quickjs-emscripten-core"
import { afterEach, describe, expect, it } from "vitest"
import { rawEngineOf } from "../src/internal/rawEngine.js"

const module = await newQuickJSWASMModuleFromVariant(
  newVariant(releaseSync, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 1024 }) }),
)

let open: { runtime: QuickJSRuntime; ctx: QuickJSContext } | undefined
const engine = () => {
  const runtime = module.newRuntime()
  const ctx = runtime.newContext()
  open = { runtime, ctx }
  const raw = rawEngineOf(ctx, runtime)
  if (raw === undefined) throw new Error("the fast path is not available with this quickjs-emscripten")
  return { runtime, ctx, raw }
}
afterEach(() => {
  open?.ctx.dispose()
  open?.runtime.dispose()
  open = undefined
})

const mallocCount = (ctx: QuickJSContext, runtime: QuickJSRuntime): number => {
  const usage = runtime.computeMemoryUsage()
  const count = (ctx.dump(usage) as { malloc_count: number }).malloc_count
  usage.dispose()
  return count
}

describe("raw engine calls", () => {
  it("refuses a context without the low-level functions", () => {
    expect(rawEngineOf({} as QuickJSContext, {} as QuickJSRuntime)).toBeUndefined()
  })

  it("calls with a number and a string, returns strings, and runs jobs like the handle API", () => {
    const { ctx, raw } = engine()
    const fns = ctx.unwrapResult(
      ctx.evalCode(`globalThis.seen = []; globalThis.settled = 0;
        [(n, s) => { seen.push([n, s]); Promise.resolve().then(() => settled++) },
         () => JSON.stringify(seen),
         () => { throw new RangeError("drained badly") }]`),
    )
    const take = ctx.getProp(fns, 0)
    const show = ctx.getProp(fns, 1)
    const fail = ctx.getProp(fns, 2)
    fns.dispose()
    raw.callNumberString(take, -7, 'é€😀 {"a":1}')
    raw.callNumberString(take, 3.5, "")
    expect(ctx.dump(ctx.unwrapResult(ctx.evalCode("settled")))).toBe(0)
    raw.runJobs()
    expect(ctx.dump(ctx.unwrapResult(ctx.evalCode("settled")))).toBe(2)
    expect(raw.callForString(show)).toEqual({
      ok: true,
      text: JSON.stringify([
        [-7, 'é€😀 {"a":1}'],
        [3.5, ""],
      ]),
    })
    const failed = raw.callForString(fail)
    expect(failed.ok).toBe(false)
    expect(failed.ok ? undefined : failed.dumped).toMatchObject({
      name: "RangeError",
      message: "drained badly",
    })
    // A throwing callee is contained too.
    raw.callNumberString(fail, 1, "x")
    expect(raw.callForString(show).ok).toBe(true)
    for (const h of [take, show, fail]) h.dispose()
    raw.dispose()
  })

  it("writes into the engine's memory after it grew", () => {
    const { ctx, raw } = engine()
    const fns = ctx.unwrapResult(
      ctx.evalCode(
        `let last = ""; let keep = []; [(n, s) => { last = s + n }, () => last, () => { keep.push(new Uint8Array(8 * 1024 * 1024)); return "" }]`,
      ),
    )
    const take = ctx.getProp(fns, 0)
    const show = ctx.getProp(fns, 1)
    const grow = ctx.getProp(fns, 2)
    fns.dispose()
    const memory = module.getWasmMemory()
    const before = memory.buffer.byteLength
    for (let i = 0; i < 3; i++) {
      expect(raw.callForString(grow).ok).toBe(true)
      raw.callNumberString(take, i, `answer-é-${i}`)
      expect(raw.callForString(show)).toEqual({ ok: true, text: `answer-é-${i}${i}` })
    }
    expect(memory.buffer.byteLength).toBeGreaterThan(before)
    for (const h of [take, show, grow]) h.dispose()
    raw.dispose()
  })

  it("leaks no engine memory over thousands of calls", () => {
    const { ctx, runtime, raw } = engine()
    const fns = ctx.unwrapResult(
      ctx.evalCode(
        `let last = ""; [(n, s) => { last = s + n; Promise.resolve(n).then((v) => { last += v }) }, () => last]`,
      ),
    )
    const take = ctx.getProp(fns, 0)
    const show = ctx.getProp(fns, 1)
    fns.dispose()
    const cycle = (i: number) => {
      raw.callNumberString(take, i, `{"value":${i}}`)
      raw.runJobs()
      const out = raw.callForString(show)
      if (!out.ok || out.text !== `{"value":${i}}${i}${i}`)
        throw new Error(`cycle ${i}: ${JSON.stringify(out)}`)
    }
    for (let i = 0; i < 200; i++) cycle(i)
    const before = mallocCount(ctx, runtime)
    for (let i = 0; i < 5000; i++) cycle(i)
    expect(mallocCount(ctx, runtime)).toBeLessThanOrEqual(before + 4)
    take.dispose()
    show.dispose()
    raw.dispose()
  })
})
