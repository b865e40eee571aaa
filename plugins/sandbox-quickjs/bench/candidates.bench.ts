/**
 * Candidate engines for the default sandbox, measured in one run, in the calling thread (engine cost only;
 * the chosen plugin adds a worker round trip on top):
 *  A. quickjs-emscripten-core + @jitl/quickjs-wasmfile-release-sync, one capped WebAssembly.Memory per
 *     module, host calls as deferred promises settled by the host (no asyncify);
 *  B. @sebastianwessel/quickjs (asyncify variant @jitl/quickjs-wasmfile-release-asyncify), host
 *     functions through its `env` marshalling.
 * bench-kit: interleaved rounds (BENCH_ROUNDS, default 7; BENCH_ROUND_MS, default 300), medians of rounds,
 * B/A as the median of per-round ratios.
 */
import releaseAsyncify from "@jitl/quickjs-wasmfile-release-asyncify"
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import { loadAsyncQuickJs } from "@sebastianwessel/quickjs"
import {
  benchSettings,
  compare,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  ratio,
  roundsLine,
} from "@toolplane/bench-kit"
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core"

const CALLS = 200
const settings = benchSettings({ rounds: 7, roundMs: 300 })
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
  const loop = (n: number) => `let s = 0; for (let i = 0; i < ${n}; i++) s += await call(i); return s`
  const expected = (CALLS * (CALLS - 1)) / 2
  const checkA = await runA(moduleA, loop(CALLS))
  const checkB = (await runB(loop(CALLS))) as { ok: boolean; data: unknown }
  if (checkA !== expected || checkB.data !== expected)
    throw new Error(`wrong sums: A=${String(checkA)} B=${JSON.stringify(checkB)}`)

  // Cold start: a few new modules per candidate per round.
  const coldA: number[] = []
  const coldB: number[] = []
  await interleaved(settings.rounds, ["A", "B"] as const, async (which) => {
    const t0 = performance.now()
    for (let i = 0; i < 3; i++)
      if (which === "A") await newA()
      else await loadAsyncQuickJs(newVariant(releaseAsyncify, {}))
    ;(which === "A" ? coldA : coldB).push((performance.now() - t0) / 3)
  })
  // One run at a time: bench-kit's first call of a case (to see whether it is async) is not awaited,
  // and B's asyncify module cannot run two programs at once.
  let last: Promise<unknown> = Promise.resolve()
  const serial = (f: () => Promise<unknown>) => () => {
    last = last.then(f, f)
    return last
  }
  const results = await compare(
    [
      { name: "A: warm start (new context, eval, dispose)", fn: serial(() => runA(moduleA, "return 1")) },
      { name: "B: warm start (new context, eval, dispose)", fn: serial(() => runB("return 1")) },
      { name: `A: ${CALLS} host calls`, fn: serial(() => runA(moduleA, loop(CALLS))) },
      { name: `B: ${CALLS} host calls`, fn: serial(() => runB(loop(CALLS))) },
      { name: "A: 0 host calls", fn: serial(() => runA(moduleA, loop(0))) },
      { name: "B: 0 host calls", fn: serial(() => runB(loop(0))) },
    ],
    settings,
  )
  const by = (name: string) => results.find((r) => r.name === name)!
  const perCall = (side: "A" | "B") =>
    by(`${side}: ${CALLS} host calls`).rounds.map(
      (x, i) => (x - by(`${side}: 0 host calls`).rounds[i]!) / CALLS,
    )
  const callA = perCall("A")
  const callB = perCall("B")
  console.log(heading("Sandbox engine candidates (calling thread, engine cost only)", roundsLine(settings)))
  console.log(
    markdownTable(
      ["measure (median of rounds)", "A", "B", "B ÷ A (median of per-round ratios)"],
      [
        [
          "cold start: new module",
          `${fmt(median(coldA), 1)} ms`,
          `${fmt(median(coldB), 1)} ms`,
          `${fmt(median(coldB.map((b, i) => b / coldA[i]!)), 2)}x`,
        ],
        [
          "warm start: new context, eval, dispose",
          `${fmt(by("A: warm start (new context, eval, dispose)").usPerCall, 1)} µs`,
          `${fmt(by("B: warm start (new context, eval, dispose)").usPerCall, 1)} µs`,
          `${fmt(ratio(by("B: warm start (new context, eval, dispose)"), by("A: warm start (new context, eval, dispose)")), 2)}x`,
        ],
        [
          "host call from the guest, per call",
          `${fmt(median(callA), 1)} µs`,
          `${fmt(median(callB), 1)} µs`,
          `${fmt(median(callB.map((b, i) => b / callA[i]!)), 2)}x`,
        ],
      ],
    ),
  )
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
