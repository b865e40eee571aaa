/**
 * The contract and escape suite every {@link Sandbox} implementation runs against itself.
 *
 * @since 0.1.0
 */
import {
  ApprovalDenied,
  causeOf,
  ExecutionFailed,
  type SandboxFailure,
  type ToolError,
} from "@toolplane/foundation"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  HostFunctionError,
  type Sandbox,
  type SandboxRunRequest,
  sandboxToEffect,
} from "../sandbox/sandbox.js"

/**
 * Options of {@link sandboxContract}.
 *
 * @since 0.1.0
 */
export interface SandboxContractOptions {
  /** Wall-time limit used by the runaway-program cases. Default 300 ms. */
  readonly timeoutMs?: number
  /** How much later than its limit a stopped run may settle. Default 3000 ms (loaded CI machines). */
  readonly slackMs?: number
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

const outcome = async (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

const tagOf = (o: Outcome): string | undefined =>
  o.ok ? undefined : ((o.error as { _tag?: string } | undefined)?._tag ?? "untyped")

/**
 * Registers a vitest suite checking that a sandbox honours the {@link Sandbox} contract and contains
 * hostile programs: results and console output; plain data across the bridge both ways; host errors as
 * catchable values with their codes; no route to the host (constructor chains, prototype tricks,
 * `process`/`require`/`import()`/`fetch`/timers); sync, async and native infinite loops stopped with
 * `SandboxTimeout`; memory bombs (arrays, strings, retained typed arrays) with `SandboxMemory`; deep
 * recursion and deep JSON; huge outputs and too many calls with `SandboxLimit`; never-settling promises;
 * host objects mutated from inside; values that throw on access returned to the host; cancellation; host
 * errors built without the program's (frozen or poisoned) intrinsics and without host stacks or paths; a
 * cap on one call's argument bytes. After
 * every hostile case the host is intact and other runs (also concurrent ones) still succeed.
 *
 * @example
 * ```ts
 * import { sandboxContract } from "@toolplane/exec/testing"
 * import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
 * sandboxContract("quickjs", () => quickJsSandbox())
 * ```
 *
 * @since 0.1.0
 */
export const sandboxContract = (
  name: string,
  makeSandbox: () => Sandbox | Promise<Sandbox>,
  options: SandboxContractOptions = {},
): void => {
  const timeoutMs = options.timeoutMs ?? 300
  const slackMs = options.slackMs ?? 3000

  describe(`sandbox contract: ${name}`, () => {
    let sandbox: Sandbox
    const run = (code: string, rest: Omit<SandboxRunRequest, "code"> = {}) => sandbox.run({ code, ...rest })
    const healthy = async () => {
      const r = await run("return [1, 2, 3].map((x) => x * 2)")
      expect(r.result).toEqual([2, 4, 6])
    }
    /** A hostile run must fail with `tag` within its limit plus slack; the host and the next run are fine. */
    const contained = async (
      code: string,
      tags: readonly string[],
      rest: Omit<SandboxRunRequest, "code"> = {},
    ) => {
      const started = Date.now()
      const o = await outcome(run(code, { limits: { wallTimeMs: timeoutMs }, ...rest }))
      const elapsed = Date.now() - started
      expect(tags, `got ${o.ok ? `result ${JSON.stringify(o.value)}` : String(o.error)}`).toContain(tagOf(o))
      expect(elapsed).toBeLessThan((rest.limits?.wallTimeMs ?? timeoutMs) + slackMs)
      expect(typeof globalThis.process?.pid).toBe("number")
      await healthy()
      return o
    }

    beforeAll(async () => {
      sandbox = await makeSandbox()
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    it("returns the program's value and console output", async () => {
      const r = await run(
        "console.log('a', 1, { b: [2] }); console.error('bad'); const x = await Promise.resolve(41); return { x: x + 1, u: undefined }",
      )
      expect(r.result).toEqual({ x: 42 })
      expect(r.logs).toEqual(['a 1 {"b":[2]}', "[error] bad"])
      expect(r.hostCalls).toBe(0)
      const empty = await run("const y = 1")
      expect(empty.result).toBeNull()
    })

    it("bridges host functions with plain data both ways", async () => {
      const seen: unknown[] = []
      const r = await run(
        "const a = await echo({ n: 1, d: new Date(0) }, [2]); return [a, await add(2, 3)]",
        {
          functions: {
            echo: async (args) => {
              seen.push(args)
              return { got: args }
            },
            add: async ([a, b]) => (a as number) + (b as number),
          },
        },
      )
      expect(seen).toEqual([[{ n: 1, d: "1970-01-01T00:00:00.000Z" }, [2]]])
      expect(r.result).toEqual([{ got: [{ n: 1, d: "1970-01-01T00:00:00.000Z" }, [2]] }, 5])
      expect(r.hostCalls).toBe(2)
    })

    it("gives the program host errors as catchable values with their codes", async () => {
      const r = await run(
        "try { await deny() } catch (e) { return { isError: e instanceof Error, code: e.code, tag: e._tag, toolId: e.toolId, message: e.message } }",
        {
          functions: {
            deny: async () => Promise.reject(new ApprovalDenied({ toolId: "a/b", reason: "no" })),
          },
        },
      )
      expect(r.result).toEqual({
        isError: true,
        code: "APPROVAL_DENIED",
        tag: "ApprovalDenied",
        toolId: "a/b",
        message: 'Call to "a/b" was denied: no',
      })
      const plain = await run("try { await boom() } catch (e) { return e.message }", {
        functions: { boom: async () => Promise.reject(new TypeError("kaput")) },
      })
      expect(plain.result).toBe("kaput")
    })

    it("fails with SandboxError carrying the program's stack and logs", async () => {
      const o = await outcome(
        run("console.log('before')\nfunction inner() { throw new TypeError('boom') }\ninner()"),
      )
      expect(tagOf(o)).toBe("SandboxError")
      const error = (
        o as { error: SandboxFailure & { cause: { name: string; message: string; stack?: string } } }
      ).error
      expect(error.cause).toMatchObject({ name: "TypeError", message: "boom" })
      expect(error.cause.stack).toMatch(/inner/)
      expect(error.logs).toEqual(["before"])
      expect(tagOf(await outcome(run("return )(")))).toBe("SandboxError")
    })

    it("offers no route to the host: constructor chains and prototype tricks", async () => {
      const r = await run(
        `const probes = {
          fnCtor: () => Function("return typeof process")(),
          ctorChain: () => this?.constructor?.constructor("return typeof process")(),
          arrowChain: () => (() => 0).constructor("return typeof require")(),
          asyncChain: () => (async () => 0).constructor("return typeof process")(),
          bridgeChain: () => ping.constructor.constructor("return typeof process")(),
          errorChain: async () => { try { await fail() } catch (e) { return e.constructor.constructor("return typeof process")() } },
          protoChain: () => Object.getPrototypeOf(ping).constructor("return typeof Buffer")(),
          symbols: () => typeof globalThis[Symbol.for("nodejs.util.inspect.custom")],
        }
        const out = {}
        for (const [k, f] of Object.entries(probes)) { try { out[k] = await f() } catch (e) { out[k] = "threw " + e.name } }
        return out`,
        {
          functions: {
            ping: async () => "pong",
            fail: async () => Promise.reject(new Error("x")),
          },
        },
      )
      for (const [probe, value] of Object.entries(r.result as Record<string, unknown>))
        expect(value === "undefined" || String(value).startsWith("threw"), `${probe}: ${String(value)}`).toBe(
          true,
        )
    })

    it("has no process, require, import(), fetch or timers unless provided", async () => {
      const r = await run(`
        const names = ["process", "require", "module", "Buffer", "fetch", "XMLHttpRequest", "WebSocket", "setTimeout", "setInterval", "setImmediate", "queueMicrotask", "Deno", "Bun", "__toolplane_host"]
        const types = Object.fromEntries(names.map((n) => [n, typeof globalThis[n]]))
        let imported
        try { await import("node:fs"); imported = "loaded" } catch (e) { imported = "threw" }
        return { types, imported }`)
      const { types, imported } = r.result as { types: Record<string, string>; imported: string }
      for (const [global, type] of Object.entries(types)) expect(type, global).toBe("undefined")
      expect(imported).toBe("threw")
    })

    it("keeps prototype pollution inside", async () => {
      await run("Object.prototype.polluted = 'yes'; Array.prototype.push = null; JSON.parse = () => 1")
      expect(({} as { polluted?: string }).polluted).toBeUndefined()
      expect(JSON.parse("2")).toBe(2)
      const r = await run("return [({}).polluted, typeof Array.prototype.push]")
      expect(r.result).toEqual([null, "function"])
    })

    it("runs host calls the program makes together concurrently, answering each to its own caller", async () => {
      // Each call waits until all 4 have arrived at the host, so the run only finishes if they are in
      // flight at once; they are answered in reverse order of arrival.
      const arrived: Array<() => void> = []
      const r = await run(
        "const xs = await Promise.all([0, 1, 2, 3].map((i) => slow(i))); return xs.concat(await slow(9))",
        {
          functions: {
            slow: ([i]) =>
              new Promise((resolve) => {
                if (i === 9) return resolve("last")
                arrived.push(() => resolve((i as number) * 10))
                if (arrived.length === 4) for (const answer of arrived.reverse()) answer()
              }),
          },
          limits: { wallTimeMs: 5000 },
        },
      )
      expect(r.result).toEqual([0, 10, 20, 30, "last"])
      expect(r.hostCalls).toBe(5)
    })

    it("keeps the bridge working when the program replaces the built-ins it could reach", async () => {
      const seen: unknown[] = []
      const r = await run(
        `Map.prototype.get = () => ({ resolve() {}, reject() {} }); Map.prototype.set = () => {}
         Map.prototype.delete = () => true; Reflect.apply = () => "forged"; Function.prototype.call = () => {}
         Function.prototype.apply = () => {}; JSON.stringify = () => '"forged"'; JSON.parse = () => ({ ok: true, value: "forged" })
         Object.prototype.then = undefined; globalThis.Promise = function () {}
         const sum = await add(2, 3)
         console.log({ sum })
         return { sum, again: await add(sum, 1) }`,
        {
          functions: {
            add: async (args) => {
              seen.push(args)
              return (args[0] as number) + (args[1] as number)
            },
          },
        },
      )
      expect(r.result).toEqual({ sum: 5, again: 6 })
      expect(r.logs).toEqual(['{"sum":5}'])
      expect(seen).toEqual([
        [2, 3],
        [5, 1],
      ])
    })

    it("isolates runs from each other: nothing a run leaves behind is visible to the next", async () => {
      // Sequential runs, so a pooled implementation reuses its warm engines for them.
      for (let i = 0; i < 6; i++) {
        const r = await run(
          `const seen = [typeof globalThis.leaked, typeof leakedVar, typeof Object.prototype.marker, typeof console.marker]
           globalThis.leaked = ${i}; var leakedVar = ${i}; Object.prototype.marker = ${i}; console.marker = ${i}
           Promise.resolve().then(() => { globalThis.late = ${i} })
           return seen.concat(typeof globalThis.late)`,
        )
        expect(r.result, `run ${i}`).toEqual([
          "undefined",
          "undefined",
          "undefined",
          "undefined",
          "undefined",
        ])
      }
      // A failed run (a program error, a limit) leaves nothing behind either.
      await outcome(run("globalThis.leaked = 'error'; throw new Error('x')"))
      await outcome(run("globalThis.leaked = 'loop'; for (;;) {}", { limits: { wallTimeMs: timeoutMs } }))
      const r = await run("return typeof globalThis.leaked")
      expect(r.result).toBe("undefined")
    })

    it("copies host objects: mutating them inside changes nothing outside", async () => {
      const shared = { list: [1, 2], nested: { a: 1 } }
      const r = await run(
        "const o = await get(); o.list.push(3); o.nested.a = 99; o.extra = true; await put(o); return o",
        {
          functions: {
            get: async () => shared,
            put: async ([o]) => {
              ;(o as { list: number[] }).list.push(4)
              return null
            },
          },
        },
      )
      expect(shared).toEqual({ list: [1, 2], nested: { a: 1 } })
      expect(r.result).toEqual({ list: [1, 2, 3], nested: { a: 99 }, extra: true })
    })

    it("returns plain data only: functions, proxies, getters that throw and thenables stay inside", async () => {
      expect((await run("return { f: () => 1, s: Symbol('x'), n: 1 }")).result).toEqual({ n: 1 })
      await contained("return { get x() { throw new Error('gotcha') } }", ["SandboxError"])
      await contained("return new Proxy({}, { ownKeys() { throw new Error('trap') } })", ["SandboxError"])
      await contained("return { toJSON() { throw new Error('nope') } }", ["SandboxError"])
      // A thenable returned by the program is awaited inside it and only its settled value leaves.
      const thenable = await run("return { then(resolve) { resolve('settled inside') } }")
      expect(thenable.result).toBe("settled inside")
      await contained("throw { get name() { throw new Error('x') }, get message() { throw 1 } }", [
        "SandboxError",
      ])
      await contained("return 10n", ["SandboxError"])
      // ... and so do arguments: a host function never sees a getter, a proxy or a function.
      const seen: unknown[] = []
      const args = await run(
        `const out = []
         for (const v of [{ get x() { throw new Error('getter') } }, new Proxy({}, { get() { throw 1 } }), { f() {}, n: 1 }])
           try { out.push(await echo(v)) } catch (e) { out.push(e.name) }
         return out`,
        {
          functions: {
            echo: async ([v]) => {
              seen.push(v)
              return v
            },
          },
        },
      )
      expect(args.result).toEqual(["TypeError", "TypeError", { n: 1 }])
      expect(seen).toEqual([{ n: 1 }])
    })

    it("builds the errors it gives the program without the program's intrinsics, frozen or poisoned", async () => {
      // Accessors that throw on the properties a host error carries, a stack hook that never returns,
      // then everything frozen: a failed host call must still reject with the error, codes intact.
      const r = await run(
        `for (const C of [Error, TypeError, RangeError])
           for (const key of ["code", "_tag", "name", "message", "toolId", "reason", "stack", "cause"])
             Object.defineProperty(C.prototype, key, { get() { return "poisoned" }, set() { throw new Error("poisoned setter") }, configurable: false })
         Error.prepareStackTrace = () => { for (;;) {} }
         Error.captureStackTrace = () => { throw new Error("poisoned") }
         for (const o of [Error.prototype, Error, TypeError.prototype, Object.prototype, Array.prototype, Function.prototype, Promise.prototype, JSON, Object, Reflect])
           Object.freeze(o)
         const out = []
         for (let i = 0; i < 2; i++)
           try { await deny() } catch (e) { out.push([e.code, e._tag, e.toolId, e.message, e instanceof Error]) }
         try { await boom() } catch (e) { out.push(e.name + ": " + e.message) }
         return out`,
        {
          functions: {
            deny: async () => Promise.reject(new ApprovalDenied({ toolId: "a/b", reason: "no" })),
            boom: async () => Promise.reject(new TypeError("kaput")),
          },
          limits: { wallTimeMs: 5000 },
        },
      )
      const denied = ["APPROVAL_DENIED", "ApprovalDenied", "a/b", 'Call to "a/b" was denied: no', true]
      expect(r.result).toEqual([denied, denied, "TypeError: kaput"])
    })

    it("gives the program no host stack or file path with a host function's error", async () => {
      const hostError = new Error("inner failure")
      const r = await run(
        `const seen = []
         for (const f of [plain, typed, nested]) {
           try { await f() } catch (e) {
             seen.push(JSON.stringify(e), String(e.stack), JSON.stringify(e.cause), JSON.stringify(e.cause && e.cause.cause))
             for (const key of Object.getOwnPropertyNames(e)) seen.push(key + "=" + JSON.stringify(e[key]))
           }
         }
         return seen.join("\\n")`,
        {
          functions: {
            plain: async () => Promise.reject(hostError),
            typed: async () =>
              Promise.reject(new ExecutionFailed({ toolId: "a/b", cause: causeOf(hostError) })),
            nested: async () =>
              Promise.reject(
                new HostFunctionError({
                  _tag: "Remote",
                  code: "REMOTE",
                  message: "remote failure",
                  stack: hostError.stack,
                  cause: {
                    name: "Error",
                    message: "deeper",
                    stack: hostError.stack,
                    cause: { stack: hostError.stack },
                  },
                }),
              ),
          },
        },
      )
      const text = String(r.result)
      expect(text).toContain("inner failure")
      expect(text).toContain("REMOTE")
      expect(hostError.stack).toContain("sandboxContract")
      for (const marker of ["sandboxContract", "node:internal", "file://", "node_modules", process.cwd()])
        expect(text, marker).not.toContain(marker)
    })

    it("caps one host call's arguments with SandboxLimit before they reach the host", async () => {
      const seen: number[] = []
      const functions = {
        echo: async ([s]: readonly unknown[]) => {
          seen.push(String(s).length)
          return String(s).length
        },
      }
      const limits = { maxArgumentBytes: 1000 }
      expect((await run("return await echo('x'.repeat(900))", { functions, limits })).result).toBe(900)
      for (const code of ["await echo('x'.repeat(1200))", "await echo('\u00e9'.repeat(600))"]) {
        const o = await contained(code, ["SandboxLimit"], {
          functions,
          limits: { ...limits, wallTimeMs: 5000 },
        })
        expect((o as { error: { limit: string; max: number } }).error).toMatchObject({
          limit: "arguments",
          max: 1000,
        })
      }
      expect(seen).toEqual([900])
    })

    it("stops a synchronous infinite loop with SandboxTimeout", async () => {
      await contained("for (;;) {}", ["SandboxTimeout"])
    })

    it("stops asynchronous infinite loops with SandboxTimeout", async () => {
      await contained("for (;;) await null", ["SandboxTimeout"])
      await contained(
        "const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})",
        ["SandboxTimeout"],
      )
      await contained("for (;;) await ping()", ["SandboxTimeout", "SandboxLimit"], {
        functions: { ping: async () => 1 },
      })
    })

    it("stops native loops that never reach the engine's interrupt check", async () => {
      await contained("return Array.prototype.join.call({ length: 2 ** 32 - 1 })", [
        "SandboxTimeout",
        "SandboxMemory",
      ])
      await contained("return Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1)", ["SandboxTimeout"])
    })

    it("stops memory bombs with SandboxMemory", async () => {
      await contained("const keep = []; for (;;) keep.push(new Uint8Array(1 << 20))", ["SandboxMemory"], {
        limits: { wallTimeMs: 10_000 },
      })
      await contained(
        "const keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'x' + i })",
        ["SandboxMemory"],
        {
          limits: { wallTimeMs: 10_000 },
        },
      )
      await contained("let s = 'xy'; for (;;) s = s + s", ["SandboxMemory", "SandboxError"], {
        limits: { wallTimeMs: 10_000 },
      })
    })

    it("contains deep recursion and deep JSON", async () => {
      // About a second each on an idle 2-core machine; the wall limit leaves room for a loaded one, and a
      // sandbox that hangs still fails (a timeout is not among the outcomes allowed).
      const long = { limits: { wallTimeMs: 30_000 } }
      await contained("const f = (n) => f(n + 1) + 1; return f(0)", ["SandboxError"], long)
      await contained(
        "return JSON.parse('['.repeat(1e6) + ']'.repeat(1e6))",
        ["SandboxError", "SandboxMemory"],
        long,
      )
      await contained(
        "let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; return o",
        ["SandboxError", "SandboxMemory"],
        long,
      )
      let deep: unknown = {}
      for (let i = 0; i < 100_000; i++) deep = { deep }
      const r = await run("try { await get() ; return 'got' } catch (e) { return e.name }", {
        functions: { get: async () => deep },
      })
      expect(typeof r.result).toBe("string")
      const caught = await run("const f = (n) => f(n + 1); try { f(0) } catch (e) { return 'caught' }")
      expect(caught.result).toBe("caught")
    }, 120_000)

    it("fails huge outputs with SandboxLimit", async () => {
      const o = await contained("return 'x'.repeat(2 ** 20)", ["SandboxLimit"], {
        limits: { maxOutputBytes: 1000 },
      })
      expect((o as { error: { limit: string } }).error.limit).toBe("output")
      await contained("for (;;) console.log('spam')", ["SandboxLimit"], {
        limits: { maxOutputBytes: 10_000 },
      })
    })

    it("fails too many host calls with SandboxLimit", async () => {
      const calls: number[] = []
      const o = await contained("for (let i = 0; i < 100; i++) await ping(i)", ["SandboxLimit"], {
        limits: { maxHostCalls: 5 },
        functions: {
          ping: async ([i]) => {
            calls.push(i as number)
            return i
          },
        },
      })
      expect((o as { error: { limit: string } }).error.limit).toBe("calls")
      expect(calls).toEqual([0, 1, 2, 3, 4])
    })

    it("fails a program over its CPU budget with SandboxLimit, not counting time waiting for the host", async () => {
      const o = await contained("for (;;) {}", ["SandboxLimit"], {
        limits: { wallTimeMs: 20_000, cpuTimeMs: timeoutMs },
      })
      expect((o as { error: { limit: string; max: number } }).error).toMatchObject({
        limit: "cpu",
        max: timeoutMs,
      })
      const waited = await run("await slow(); return 'ok'", {
        limits: { cpuTimeMs: 100, wallTimeMs: 20_000 },
        functions: { slow: () => new Promise((resolve) => setTimeout(() => resolve(null), 400)) },
      })
      expect(waited.result).toBe("ok")
    })

    it("ends a never-settling promise instead of hanging", async () => {
      await contained("await new Promise(() => {})", ["SandboxError", "SandboxTimeout"])
      await contained("await wait()", ["SandboxTimeout"], {
        functions: {
          wait: (_args, { signal }) =>
            new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
        },
      })
    })

    it("cancels a run when its signal aborts", async () => {
      const controller = new AbortController()
      const pending = outcome(
        run("for (;;) {}", { signal: controller.signal, limits: { wallTimeMs: 30_000 } }),
      )
      setTimeout(() => controller.abort(), 50)
      expect(tagOf(await pending)).toBe("Cancelled")
      await healthy()
    })

    it("keeps other runs going while one runs away", async () => {
      const runaway = outcome(run("for (;;) {}", { limits: { wallTimeMs: timeoutMs * 3 } }))
      const normal = await Promise.all(
        [1, 2, 3].map((n) =>
          run(`return await double(${n})`, { functions: { double: async ([x]) => (x as number) * 2 } }),
        ),
      )
      expect(normal.map((r) => r.result)).toEqual([2, 4, 6])
      expect(tagOf(await runaway)).toBe("SandboxTimeout")
    })

    it("has an Effect form with typed failures", async () => {
      const effectSandbox = sandboxToEffect(sandbox)
      const tag = await Effect.runPromise(
        effectSandbox.run({ code: "for (;;) {}", limits: { wallTimeMs: timeoutMs } }).pipe(
          Effect.map(() => "finished"),
          Effect.catchTag("SandboxTimeout", (e) =>
            Effect.succeed(`timeout ${(e as ToolError & { timeoutMs: number }).timeoutMs}`),
          ),
        ),
      )
      expect(tag).toBe(`timeout ${timeoutMs}`)
      const ok = await Effect.runPromise(effectSandbox.run({ code: "return 7" }))
      expect(ok.result).toBe(7)
    })
  })
}
