/**
 * Candidate engines for the default sandbox, measured in one run, in the calling thread (engine cost only;
 * the chosen plugin adds a worker round trip on top):
 *  A. quickjs-emscripten-core + @jitl/quickjs-wasmfile-release-sync, one capped WebAssembly.Memory per
 *     module, host calls as deferred promises settled by the host (no asyncify);
 *  B. @sebastianwessel/quickjs (asyncify variant @jitl/quickjs-wasmfile-release-asyncify), host
 *     functions through its `env` marshalling.
 * Prints medians of interleaved rounds and B/A ratios.
 */
import releaseAsyncify from "@jitl/quickjs-wasmfile-release-asyncify"
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import { loadAsyncQuickJs } from "@sebastianwessel/quickjs"
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core"

const CALLS = 2000
const ROUNDS = 7

const newA = (): Promise<QuickJSWASMModule> =>
  newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, {
      wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 1024 }),
    }),
  )

const runA = async (module: QuickJSWASMModule, code: string): Promise<unknown> => {
  const ctx = module.newContext()
  try {
    const call = ctx.newFunction("call", (arg) => {
      const value = ctx.dump(arg)
      const deferred = ctx.newPromise()
      queueMicrotask(() => {
        const h = ctx.newNumber(value as number)
        deferred.resolve(h)
        h.dispose()
        deferred.dispose()
        ctx.runtime.executePendingJobs()
      })
      return deferred.handle
    })
    ctx.setProp(ctx.global, "call", call)
    call.dispose()
    const result = ctx.unwrapResult(ctx.evalCode(`(async () => { ${code} })()`))
    const settled = ctx.resolvePromise(result)
    result.dispose()
    ctx.runtime.executePendingJobs()
    const out = ctx.unwrapResult(await settled)
    const v = ctx.dump(out)
    out.dispose()
    return v
  } finally {
    ctx.dispose()
  }
}

const main = async () => {
  const { runSandboxed } = await loadAsyncQuickJs(releaseAsyncify)
  const runB = (code: string) =>
    runSandboxed(
      async ({ evalCode }) =>
        evalCode(`const call = env.call; export default await (async () => { ${code} })()`),
      {
        env: { call: async (x: number) => x },
        memoryLimit: 64 * 1024 * 1024,
      },
    )

  const moduleA = await newA()
  const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s += await call(i); return s`
  const expected = (CALLS * (CALLS - 1)) / 2
  const checkA = await runA(moduleA, loop)
  const checkB = (await runB(loop)) as { ok: boolean; data: unknown }
  if (checkA !== expected || checkB.data !== expected)
    throw new Error(`wrong sums: A=${String(checkA)} B=${JSON.stringify(checkB)}`)

  const time = async (f: () => Promise<unknown>, n: number): Promise<number> => {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await f()
    return ((performance.now() - t0) / n) * 1000
  }
  const rows: Record<string, { a: number[]; b: number[] }> = {
    "cold start (new module) µs": { a: [], b: [] },
    "warm start (new context, eval, dispose) µs": { a: [], b: [] },
    "host call from guest µs/call": { a: [], b: [] },
  }
  for (let r = 0; r < ROUNDS; r++) {
    rows["cold start (new module) µs"]!.a.push(await time(newA, 3))
    rows["cold start (new module) µs"]!.b.push(
      await time(() => loadAsyncQuickJs(newVariant(releaseAsyncify, {})), 3),
    )
    rows["warm start (new context, eval, dispose) µs"]!.a.push(
      await time(() => runA(moduleA, "return 1"), 200),
    )
    rows["warm start (new context, eval, dispose) µs"]!.b.push(await time(() => runB("return 1"), 200))
    rows["host call from guest µs/call"]!.a.push((await time(() => runA(moduleA, loop), 1)) / CALLS)
    rows["host call from guest µs/call"]!.b.push((await time(() => runB(loop), 1)) / CALLS)
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  console.log(
    "candidate                                   A (core+sync, capped memory)   B (@sebastianwessel/quickjs)   B/A",
  )
  for (const [name, { a, b }] of Object.entries(rows)) {
    const ma = median(a)
    const mb = median(b)
    console.log(
      `${name.padEnd(44)}${ma.toFixed(1).padStart(12)}${mb.toFixed(1).padStart(30)}${(mb / ma).toFixed(2).padStart(10)}x`,
    )
  }
  // Memory: wasm memory the module holds after the runs, and whether a retained typed-array bomb is capped.
  const bombA = await runA(
    moduleA,
    "const keep = []; try { for (;;) keep.push(new Uint8Array(1 << 20)) } catch (e) { return keep.length }",
  ).catch((e: unknown) => `threw ${String(e)}`)
  console.log(
    `A: wasm memory ${(moduleA.getWasmMemory().buffer.byteLength / 2 ** 20).toFixed(0)} MiB (max 64 MiB); retained Uint8Array bomb -> ${String(bombA)} MiB then stopped`,
  )
  const mem0 = process.memoryUsage().rss
  const bombB = await runSandboxed(
    async ({ evalCode }) =>
      evalCode(
        "const keep = []; let n = 0; try { for (; n < 300; n++) keep.push(new Uint8Array(1 << 20)) } catch (e) {} export default n",
      ),
    { memoryLimit: 64 * 1024 * 1024 },
  )
  console.log(
    `B: memoryLimit 64 MiB; retained Uint8Array bomb (300 x 1 MiB) -> ${JSON.stringify(bombB)}; rss +${((process.memoryUsage().rss - mem0) / 2 ** 20).toFixed(0)} MiB`,
  )
}

await main()
