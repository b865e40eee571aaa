import { Cancelled, CurrentContext, defineTool, Timeout } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { createRunner } from "../src/index.js"
import { deferred, tick } from "./helpers.js"

describe("cancellation and deadlines", () => {
  it("cancelling the caller aborts the running handler's signal and stops its work", async () => {
    let steps = 0
    let sawAbort = false
    const started = deferred()
    const loop = defineTool({
      id: "work/loop",
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => {
        started.resolve()
        while (!ctx.signal.aborted) {
          steps++
          await tick(2)
        }
        sawAbort = true
        return "stopped"
      },
    })
    const runner = createRunner({ backends: [definitionBackend([loop])] })
    const controller = new AbortController()
    const call = runner.callTool({ name: "work/loop", context: { signal: controller.signal } })
    await started.promise
    await tick(10)
    controller.abort(new Error("user pressed stop"))
    const error = await call.catch((e) => e)
    expect(error).toBeInstanceOf(Cancelled)
    expect(error.reason).toBe("user pressed stop")
    await tick(10)
    expect(sawAbort).toBe(true)
    const after = steps
    await tick(20)
    expect(steps).toBe(after)
  })

  it("answers the caller at once even when the handler ignores the signal", async () => {
    const never = defineTool({ id: "work/stuck", handler: () => new Promise(() => {}) })
    const runner = createRunner({ backends: [definitionBackend([never])] })
    const controller = new AbortController()
    const call = runner.callTool({ name: "work/stuck", context: { signal: controller.signal } })
    setTimeout(() => controller.abort(), 5)
    await expect(call).rejects.toBeInstanceOf(Cancelled)
  })

  it("interrupts an Effect handler on cancellation", async () => {
    let interrupted = false
    const eff = defineTool({
      id: "work/effect",
      handler: () =>
        Effect.gen(function* () {
          yield* CurrentContext
          yield* Effect.sleep("10 seconds")
          return "late"
        }).pipe(Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))),
    })
    const runner = createRunner({ backends: [definitionBackend([eff])] })
    const controller = new AbortController()
    const call = runner.callTool({ name: "work/effect", context: { signal: controller.signal } })
    setTimeout(() => controller.abort(), 10)
    await expect(call).rejects.toBeInstanceOf(Cancelled)
    await tick(5)
    expect(interrupted).toBe(true)
  })

  it("fires the tool's default timeout and aborts the handler", async () => {
    let aborted: unknown
    const slow = defineTool({
      id: "work/slow",
      timeoutMs: 30,
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve("late"), 5000)
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t)
            aborted = ctx.signal.reason
          })
        }),
    })
    const runner = createRunner({ backends: [definitionBackend([slow])] })
    const started = Date.now()
    const error = await runner.callTool({ name: "work/slow" }).catch((e) => e)
    expect(error).toBeInstanceOf(Timeout)
    expect(error.toolId).toBe("work/slow")
    expect(Date.now() - started).toBeLessThan(1000)
    expect(aborted).toBeInstanceOf(Timeout)
  })

  it("uses the caller's deadline over the tool's timeout, and the runner default otherwise", async () => {
    const slow = defineTool({ id: "work/slow2", timeoutMs: 5000, handler: () => new Promise(() => {}) })
    const plain = defineTool({ id: "work/plain", handler: () => new Promise(() => {}) })
    const runner = createRunner({ backends: [definitionBackend([slow, plain])], defaultTimeoutMs: 20 })
    const t0 = Date.now()
    await expect(runner.callTool({ name: "work/slow2", context: { timeoutMs: 20 } })).rejects.toBeInstanceOf(
      Timeout,
    )
    expect(Date.now() - t0).toBeLessThan(1000)
    await expect(runner.callTool({ name: "work/plain" })).rejects.toBeInstanceOf(Timeout)
    await expect(
      runner.callTool({ name: "work/plain", context: { deadline: Date.now() - 1 } }),
    ).rejects.toBeInstanceOf(Timeout)
  })
})
