import { Context, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  BackendUnavailable,
  backendFromEffect,
  backendToEffect,
  bindHandlers,
  ConfigError,
  CurrentContext,
  defineBackend,
  defineEffectEnricher,
  defineEnricher,
  defineTool,
  ExecutionFailed,
  enricherFromEffect,
  enricherToEffect,
  isToolError,
  makeContext,
  makeEffectBackend,
  makeTool,
  RateLimited,
  retryableByDefault,
  TaggedToolError,
  Timeout,
  type ToolError,
  ToolNotFound,
  textResult,
  toToolError,
} from "../src/index.js"
import { fromContextual } from "../src/internal/effectBridge.js"
import { definitionBackend } from "../src/testing/index.js"

class Greeter extends Context.Service<Greeter, { greet(name: string): string }>()("test/Greeter") {}

const hello = defineTool({
  id: "demo/hello",
  input: z.object({ name: z.string() }),
  handler: ({ name }) =>
    Effect.gen(function* () {
      const greeter = yield* Greeter
      const ctx = yield* CurrentContext
      return `${greeter.greet(name)} (${ctx.callerId ?? "anonymous"})`
    }),
})

describe("backendToEffect", () => {
  const broken = defineBackend({
    name: "broken",
    toolSchemas: () => {
      throw new Error("connection refused")
    },
    execute: () => textResult("never"),
  })

  it("turns a listing failure into a typed BackendUnavailable, not a defect", async () => {
    const effect = backendToEffect(broken)
    const tag = await Effect.runPromise(
      effect.toolSchemas.pipe(
        Effect.map(() => "listed"),
        Effect.catchTag("BackendUnavailable", (e) => Effect.succeed(`${e._tag}: ${e.backend}: ${e.reason}`)),
      ),
    )
    expect(tag).toBe("BackendUnavailable: broken: connection refused")
    const supported = await Effect.runPromiseExit(effect.supportedTools)
    expect(Exit.isFailure(supported)).toBe(true)
  })

  it("keeps a typed rejection as it is", async () => {
    const effect = backendToEffect(
      defineBackend({
        name: "limited",
        toolSchemas: () => Promise.reject(new RateLimited({ key: "limited" })),
        execute: () => textResult("x"),
      }),
    )
    const error = await Effect.runPromise(Effect.flip(effect.toolSchemas))
    expect(error).toBeInstanceOf(RateLimited)
  })

  it("interrupting execute aborts the signal the backend sees", async () => {
    let seen: AbortSignal | undefined
    const slow = backendToEffect(
      defineBackend({
        name: "slow",
        toolSchemas: () => [],
        execute: (_call, ctx) =>
          new Promise((resolve) => {
            seen = ctx.signal
            ctx.signal.addEventListener("abort", () => resolve(textResult("stopped")))
          }),
      }),
    )
    const exit = await Effect.runPromiseExit(
      slow.execute({ toolId: "slow/x", arguments: {} }).pipe(Effect.timeout("20 millis")),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(seen?.aborted).toBe(true)
  })
})

describe("makeEffectBackend", () => {
  const program = makeEffectBackend({
    name: "greet",
    toolSchemas: Effect.succeed([makeTool({ id: "greet/hi", inputSchema: { type: "object" } })]),
    execute: (call) =>
      call.toolId === "greet/hi"
        ? Effect.map(Greeter, (g) => textResult(g.greet(String(call.arguments?.name))))
        : Effect.fail(new ToolNotFound({ toolId: call.toolId, suggestions: ["greet/hi"] })),
    requiresApproval: () => Effect.succeed(false),
  })
  const provided = program.pipe(Effect.provideService(Greeter, { greet: (n) => `hi ${n}` }))

  it("captures its requirements and fails with typed errors", async () => {
    const backend = await Effect.runPromise(provided)
    const ok = await Effect.runPromise(backend.execute({ toolId: "greet/hi", arguments: { name: "Ada" } }))
    expect(ok.content).toEqual([{ type: "text", text: "hi Ada" }])
    const missing = await Effect.runPromise(
      backend
        .execute({ toolId: "greet/nope", arguments: {} })
        .pipe(Effect.catchTag("ToolNotFound", (e) => Effect.succeed(e.suggestions))),
    )
    expect(missing).toEqual(["greet/hi"])
  })

  it("is a plain backend through backendFromEffect, rejecting with the typed error", async () => {
    const plain = backendFromEffect(await Effect.runPromise(provided))
    expect(await plain.supportedTools()).toEqual(["greet/hi"])
    expect(await plain.requiresApproval("greet/hi")).toBe(false)
    await expect(
      plain.execute({ toolId: "greet/nope", arguments: {} }, makeContext()),
    ).rejects.toBeInstanceOf(ToolNotFound)
  })
})

describe("bindHandlers", () => {
  it("provides an Effect handler's requirements from the context it runs in", async () => {
    const [bound] = await Effect.runPromise(
      bindHandlers([hello]).pipe(Effect.provideService(Greeter, { greet: (n) => `hello ${n}` })),
    )
    const backend = definitionBackend([bound!])
    const result = await backend.execute(
      { toolId: "demo/hello", arguments: { name: "Ada" } },
      makeContext({ callerId: "alice" }),
    )
    expect(result.content).toEqual([{ type: "text", text: "hello Ada (alice)" }])
    await expect(bound!.invoke({ name: 3 })).rejects.toMatchObject({ _tag: "InvalidArguments" })
  })

  it("without the service, the handler's definition is a type error and a defect at run time", async () => {
    // @ts-expect-error: hello requires Greeter, a backend accepts only definitions that need nothing
    const backend = definitionBackend([hello])
    await expect(
      backend.execute({ toolId: "demo/hello", arguments: { name: "Ada" } }, makeContext()),
    ).rejects.toBeInstanceOf(ExecutionFailed)
  })
})

describe("enrichers, Effect form", () => {
  it("enricherFromEffect throws the typed failure of a rewrite", () => {
    const strict = enricherFromEffect(
      defineEffectEnricher({
        name: "needs-token",
        categories: [],
        transformArgs: (toolId) =>
          Effect.fail(new ConfigError({ path: "token", reason: `needed by ${toolId}` })),
      }),
    )
    expect(() => strict.transformArgs("gh/search", {})).toThrow(ConfigError)
    expect(strict.enrichSchema(makeTool({ id: "gh/search" })).id).toBe("gh/search")
  })

  it("enricherToEffect turns a throw into a typed failure", async () => {
    const throwing = enricherToEffect(
      defineEnricher({
        name: "boom",
        categories: [],
        transformArgs: () => {
          throw new Error("bad rewrite")
        },
      }),
    )
    const error = await Effect.runPromise(Effect.flip(throwing.transformArgs("x/y", {})))
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect(error.message).toContain("bad rewrite")
  })
})

describe("the ToolError family", () => {
  class QuotaExceeded extends TaggedToolError("QuotaExceeded")<{ readonly account: string }> {
    readonly code = "QUOTA_EXCEEDED"
    override get message(): string {
      return `quota exceeded for ${this.account}`
    }
  }
  retryableByDefault(QuotaExceeded)

  it("recognises members defined outside foundation", () => {
    const error = new QuotaExceeded({ account: "acme" })
    expect(isToolError(error)).toBe(true)
    expect(error.retryable).toBe(true)
    expect(toToolError(error, "x/y")).toBe(error)
    expect(isToolError(new Error("plain"))).toBe(false)
    expect(isToolError({ _tag: "ToolNotFound", toolId: "a/b" })).toBe(false)
  })

  it("says whether it is retryable", () => {
    const cause = { name: "Error", message: "boom" }
    expect(new ExecutionFailed({ toolId: "a/b", cause }).retryable).toBe(true)
    expect(new ExecutionFailed({ toolId: "a/b", cause, retryable: false }).retryable).toBe(false)
    expect(new BackendUnavailable({ backend: "b", reason: "down" }).retryable).toBe(true)
    expect(new RateLimited({ key: "k" }).retryable).toBe(true)
    expect(new ToolNotFound({ toolId: "a/b", suggestions: [] }).retryable).toBe(false)
    expect(new Timeout({ toolId: "a/b", timeoutMs: 1 }).retryable).toBe(false)
  })

  it("toToolError wraps anything else in ExecutionFailed naming the tool", () => {
    const wrapped: ToolError = toToolError(new TypeError("nope"), "a/b")
    expect(wrapped).toBeInstanceOf(ExecutionFailed)
    expect(wrapped.message).toBe('Tool "a/b" failed: nope')
  })
})

describe("fromContextual", () => {
  it("links a caller's signal without AbortSignal.any and unlinks when done", async () => {
    const controller = new AbortController()
    const any = AbortSignal.any
    let anyCalls = 0
    AbortSignal.any = (signals) => {
      anyCalls++
      return any(signals)
    }
    try {
      let inner: AbortSignal | undefined
      const pending = Effect.runPromiseExit(
        fromContextual(
          (ctx) =>
            new Promise<string>((_, reject) => {
              inner = ctx.signal
              ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
            }),
          { signal: controller.signal },
          (e) => e,
        ),
      )
      await new Promise((r) => setTimeout(r, 5))
      controller.abort(new Error("caller gave up"))
      const exit = await pending
      expect(Exit.isFailure(exit)).toBe(true)
      expect(inner?.aborted).toBe(true)
      expect(anyCalls).toBe(0)
    } finally {
      AbortSignal.any = any
    }
  })

  it("a Layer-free program gets the value and the signal is not aborted", async () => {
    const value = await Effect.runPromise(
      fromContextual(
        (ctx) => Promise.resolve(ctx.signal.aborted),
        undefined,
        (e) => e,
      ),
    )
    expect(value).toBe(false)
    expect(Layer.isLayer(Layer.empty)).toBe(true)
  })
})
