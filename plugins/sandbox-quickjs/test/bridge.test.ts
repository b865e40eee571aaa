/**
 * The host-call bridge between the parent and a worker: shared rings for calls and answers, with
 * messages for what does not fit. Small rings (`bridgeBytes`) force wrap-arounds and the fallback.
 */
import { Worker } from "node:worker_threads"
import { sandboxContract } from "@toolplane/exec/testing"
import { InvalidArguments, SandboxCrashed } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { quickJsSandbox } from "../src/index.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// The whole contract and escape suite again, with rings so small that most calls wrap or fall back.
sandboxContract("quickjs with 64-byte rings", () => quickJsSandbox({ bridgeBytes: 64, maxWorkers: 2 }))

describe("quickJsSandbox host-call bridge", () => {
  it("carries arguments and results larger than the rings both ways (message fallback), intact", async () => {
    const sandbox = quickJsSandbox({ bridgeBytes: 256, maxWorkers: 1 })
    try {
      const run = await sandbox.run({
        code: `
          const big = "é€😀x".repeat(20000)
          const back = await echo(big, { nested: [big.length] })
          const made = await make(50000)
          return [back[0] === big, back[1].nested[0], made.length, made.slice(0, 3), typeof made]`,
        functions: {
          echo: async (args) => args,
          make: async ([n]) => "ab€".repeat(n as number),
        },
        limits: { maxOutputBytes: 4 * 2 ** 20 },
      })
      expect(run.result).toEqual([true, 100_000, 150_000, "ab€", "string"])
    } finally {
      await sandbox.close()
    }
  })

  it("wraps around the rings thousands of times with answers of every size, in a sequential loop", async () => {
    const sandbox = quickJsSandbox({ bridgeBytes: 512, maxWorkers: 1 })
    try {
      const run = await sandbox.run({
        code: `
          let ok = 0
          for (let i = 0; i < 3000; i++) {
            const s = await pad(i, i % 300)
            if (s.length === i % 300 + String(i).length && s.endsWith(String(i))) ok++
          }
          return ok`,
        functions: { pad: async ([i, n]) => "€".repeat(n as number) + String(i) },
        limits: { maxHostCalls: 5000, wallTimeMs: 60_000 },
      })
      expect(run.result).toBe(3000)
      expect(run.hostCalls).toBe(3000)
    } finally {
      await sandbox.close()
    }
  })

  it("runs concurrent calls of a Promise.all concurrently and settles each with its own answer", async () => {
    const sandbox = quickJsSandbox({ bridgeBytes: 128, maxWorkers: 1 })
    let inFlight = 0
    let most = 0
    try {
      const run = await sandbox.run({
        code: `
          const ids = Array.from({ length: 40 }, (_, i) => i)
          const out = await Promise.all(ids.map((i) => slow(i)))
          return out.every((v, i) => v === "r".repeat(i % 50) + i)`,
        functions: {
          slow: async ([i]) => {
            inFlight++
            most = Math.max(most, inFlight)
            // Answers arrive out of order: later calls finish first.
            await sleep(40 - (i as number))
            inFlight--
            return "r".repeat((i as number) % 50) + String(i)
          },
        },
      })
      expect(run.result).toBe(true)
      expect(most).toBe(40)
    } finally {
      await sandbox.close()
    }
  })

  it("delivers host errors, small and larger than the ring, as catchable errors with their fields", async () => {
    const sandbox = quickJsSandbox({ bridgeBytes: 128, maxWorkers: 1 })
    try {
      const run = await sandbox.run({
        code: `
          const out = []
          for (const big of [false, true]) {
            try { await fail(big) } catch (e) { out.push([e instanceof Error, e._tag, e.code, e.message.length > 1000, e.toolId]) }
          }
          try { await plain() } catch (e) { out.push([e.name, e.message]) }
          return out`,
        functions: {
          fail: async ([big]) => {
            throw new InvalidArguments({
              toolId: "t/x",
              issues: [{ path: "/q", rule: "type", message: big ? "m".repeat(5000) : "short" }],
            })
          },
          plain: async () => {
            throw new TypeError("plain failure")
          },
        },
      })
      const out = run.result as unknown[][]
      expect(out[0]).toEqual([true, "InvalidArguments", "INVALID_ARGUMENTS", false, "t/x"])
      expect(out[1]).toEqual([true, "InvalidArguments", "INVALID_ARGUMENTS", true, "t/x"])
      expect(out[2]).toEqual(["TypeError", "plain failure"])
    } finally {
      await sandbox.close()
    }
  })

  it("works with messages only (bridgeBytes 0)", async () => {
    const sandbox = quickJsSandbox({ bridgeBytes: 0, maxWorkers: 1 })
    try {
      const run = await sandbox.run({
        code: `let s = 0; for (let i = 0; i < 200; i++) s += await add(i, 1); const all = await Promise.all([add(1, 2), add(3, 4)]); try { await add("x") } catch (e) { return [s, all, e.message] }`,
        functions: {
          add: async ([a, b]) => {
            if (typeof a !== "number") throw new Error("not a number")
            return a + (b as number)
          },
        },
      })
      expect(run.result).toEqual([20100, [3, 7], "not a number"])
    } finally {
      await sandbox.close()
    }
  })

  it("fails the run with SandboxCrashed when the worker dies while a call is in flight, and keeps serving", async () => {
    // The test sees the sandbox's workers by recording those it starts a run on (`ref()`).
    const started = new Set<Worker>()
    const ref = Worker.prototype.ref
    Worker.prototype.ref = function (this: Worker) {
      started.add(this)
      return ref.call(this)
    }
    const sandbox = quickJsSandbox({ maxWorkers: 1 })
    let answered = 0
    try {
      const crashed = await sandbox
        .run({
          code: "const a = later(); const b = await kill(); return [await a, b]",
          functions: {
            later: async () => {
              await sleep(300)
              answered++
              return 1
            },
            kill: async () => {
              // The worker dies with `later` still in flight; its answer comes after the death.
              for (const worker of started) await worker.terminate()
              return 2
            },
          },
        })
        .catch((e: unknown) => e)
      expect(crashed).toBeInstanceOf(SandboxCrashed)
      expect((crashed as SandboxCrashed).reason).toMatch(/exited/)
      await sleep(400)
      expect(answered).toBe(1)
      const next = await sandbox.run({
        code: "return [await twice(21), await twice(1)]",
        functions: { twice: async ([x]) => (x as number) * 2 },
      })
      expect(next.result).toEqual([42, 2])
    } finally {
      Worker.prototype.ref = ref
      await sandbox.close()
    }
  })

  it("ignores an answer that arrives after its run ended, and the next run on the same worker is unaffected", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 1 })
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    try {
      // The program returns without awaiting its call; the call's answer comes during the next run.
      const first = await sandbox.run({
        code: "void held(); return 'first'",
        functions: {
          held: async () => {
            await gate
            return "late"
          },
        },
      })
      expect(first.result).toBe("first")
      const second = sandbox.run({
        code: "const a = await echo(1); const b = await echo(2); return [a, b]",
        functions: {
          echo: async ([x]) => {
            release()
            await sleep(5)
            return x
          },
        },
      })
      expect((await second).result).toEqual([1, 2])
    } finally {
      await sandbox.close()
    }
  })
})
