import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { contextToInit } from "../src/executionContext.js"
import {
  CurrentContext,
  type LogEntry,
  makeContext,
  remainingMs,
  runWithContext,
  toContext,
} from "../src/index.js"
import { fromContextual } from "../src/internal/effectBridge.js"

describe("ExecutionContext", () => {
  it("combines deadline and timeout, the earlier winning", () => {
    const now = Date.now()
    expect(makeContext({ deadline: now + 10_000, timeoutMs: 50 }).deadline).toBeLessThanOrEqual(now + 1000)
    expect(makeContext({ deadline: now + 10, timeoutMs: 60_000 }).deadline).toBe(now + 10)
    expect(remainingMs(makeContext())).toBe(Number.POSITIVE_INFINITY)
    expect(remainingMs(makeContext({ deadline: now - 5 }))).toBe(0)
  })

  it("carries caller, session, progress, log, client requests and metadata", async () => {
    const progress: number[] = []
    const logs: LogEntry[] = []
    const ctx = makeContext({
      callerId: "alice",
      sessionId: "s1",
      onProgress: (p) => progress.push(p.progress),
      onLog: (e) => logs.push(e),
      client: { createMessage: async () => ({ role: "assistant" }) },
      metadata: { trace: "t" },
    })
    ctx.reportProgress({ progress: 1, total: 2 })
    ctx.log({ level: "info", data: "hello" })
    expect(progress).toEqual([1])
    expect(logs).toEqual([{ level: "info", data: "hello" }])
    expect(await ctx.client.createMessage!({})).toEqual({ role: "assistant" })
    const copy = toContext(contextToInit(ctx))
    expect(copy).toMatchObject({
      callId: ctx.callId,
      callerId: "alice",
      sessionId: "s1",
      metadata: { trace: "t" },
    })
    copy.reportProgress({ progress: 2 })
    expect(progress).toEqual([1, 2])
    expect(toContext(ctx)).toBe(ctx)
  })

  it("an AbortSignal interrupts an Effect run with the context", async () => {
    const controller = new AbortController()
    let interrupted = false
    const running = runWithContext(
      Effect.gen(function* () {
        const ctx = yield* CurrentContext
        expect(ctx.callerId).toBe("bob")
        yield* Effect.sleep("10 seconds")
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))),
      makeContext({ callerId: "bob", signal: controller.signal }),
    )
    setTimeout(() => controller.abort(), 10)
    await expect(running).rejects.toBeDefined()
    expect(interrupted).toBe(true)
  })

  it("interrupting an Effect aborts the context's signal", async () => {
    let aborted = false
    const effect = fromContextual(
      (ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true
            resolve("stopped")
          })
        }),
      {},
      (e) => e,
    )
    await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(effect)
        yield* Effect.sleep("10 millis")
        yield* Fiber.interrupt(fiber)
      }),
    )
    expect(aborted).toBe(true)
  })
})
