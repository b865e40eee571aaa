/**
 * The rejected design, measured for comparison: the same QuickJS engine run in the calling (host) thread,
 * with host calls as deferred promises settled directly (no thread hop). Optionally every entry into the
 * engine runs under `node:vm`'s `timeout`, the only hard wall-clock stop Node offers for code on the host
 * thread (a watchdog thread per entry); without it, a native loop that never reaches the interrupt
 * handler blocks the host's event loop for as long as it runs.
 */
import { Script } from "node:vm"
import releaseSync from "@jitl/quickjs-wasmfile-release-sync"
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core"

const ENTRY = "__toolplaneBenchEntry"
const script = new Script(`globalThis.${ENTRY}()`)

/** Runs programs on the host thread; `watchdogMs` wraps each engine entry in a `vm` timeout. */
export const hostThreadEngine = async (options: { readonly watchdogMs?: number } = {}) => {
  const module: QuickJSWASMModule = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 1152 }) }),
  )
  const g = globalThis as unknown as Record<string, unknown>
  const enter = <T>(f: () => T): T => {
    if (options.watchdogMs === undefined) return f()
    let out: T | undefined
    g[ENTRY] = () => {
      out = f()
    }
    script.runInThisContext({ timeout: options.watchdogMs })
    return out as T
  }
  return {
    /** Runs `code` (an async function body) with `call(...args)` bridged to `fn`; resolves to its result. */
    run: (code: string, fn: (args: unknown[]) => Promise<unknown>): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const runtime = module.newRuntime()
        const ctx = runtime.newContext()
        let outcome: { ok: boolean; json: string } | undefined
        let pending = 0
        const end = () => {
          ctx.dispose()
          runtime.dispose()
          if (outcome?.ok) resolve(JSON.parse(outcome.json))
          else reject(new Error(outcome?.json ?? "never settled"))
        }
        const pump = () => {
          enter(() => runtime.executePendingJobs())
          if (outcome !== undefined || pending === 0) end()
        }
        const call = ctx.newFunction("call", (jsonH) => {
          const deferred = ctx.newPromise()
          const args = JSON.parse(ctx.getString(jsonH)) as unknown[]
          pending++
          void fn(args).then((value) => {
            pending--
            const h = ctx.newString(JSON.stringify(value))
            deferred.resolve(h)
            h.dispose()
            deferred.dispose()
            pump()
          })
          return deferred.handle
        })
        const done = ctx.newFunction("done", (okH, jsonH) => {
          outcome = { ok: ctx.dump(okH) === true, json: ctx.getString(jsonH) }
        })
        ctx.setProp(ctx.global, "__call", call)
        ctx.setProp(ctx.global, "__done", done)
        call.dispose()
        done.dispose()
        const program = enter(() =>
          ctx.evalCode(
            `const call = async (...a) => JSON.parse(await __call(JSON.stringify(a)));
             (async () => {${code}\n})().then((v) => __done(true, JSON.stringify(v ?? null)), (e) => __done(false, String(e)))`,
          ),
        )
        if (program.error) {
          program.error.dispose()
          outcome = { ok: false, json: "eval failed" }
          end()
          return
        }
        program.value.dispose()
        pump()
      }),
  }
}
