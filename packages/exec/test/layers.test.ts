import {
  BackendUnavailable,
  backendLayer,
  bindHandlers,
  defineBackend,
  defineEffectEnricher,
  defineTool,
  EffectToolService,
  ExecutionFailed,
  enricherLayer,
  retryableByDefault,
  TaggedToolError,
  textResult,
} from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { approveAll, approverLayer, createRunner, EffectToolRunner, toolRunnerLayer } from "../src/index.js"

class Greeter extends Context.Service<Greeter, { greet(name: string): string }>()("test/Greeter") {}

const hello = defineTool({
  id: "hello/greet",
  input: z.object({ name: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ name }) => Effect.map(Greeter, (g) => g.greet(name)),
})
const weather = defineTool({
  id: "weather/current",
  input: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ city }) => ({ city, tempC: 21 }),
})

const ids = Effect.map(EffectToolRunner, (r) => r.listAll).pipe(
  Effect.flatten,
  Effect.map((tools) => tools.map((t) => t.id)),
)

describe("Layers contributing to the runner", () => {
  it("a scoped backend Layer registers its backend and removes it when its scope closes", async () => {
    let closed = 0
    const weatherBackend = defineBackend({
      name: "weather",
      toolSchemas: () => [weather],
      execute: (call, ctx) => definitionBackend([weather]).execute(call, ctx),
      requiresApproval: () => false,
      close: () => {
        closed++
      },
    })
    const program = Effect.gen(function* () {
      const before = yield* ids
      const during = yield* Effect.provide(
        Effect.gen(function* () {
          const runner = yield* EffectToolRunner
          const result = yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
          return { listed: yield* ids, result }
        }),
        backendLayer(weatherBackend),
      )
      const after = yield* ids
      const gone = yield* Effect.flatMap(EffectToolRunner, (r) =>
        r.callTool({ name: "weather/current", arguments: { city: "Oslo" } }),
      ).pipe(Effect.catchTag("ToolNotFound", (e) => Effect.succeed(`gone: ${e.toolId}`)))
      return { before, during, after, gone }
    })
    const out = await Effect.runPromise(program.pipe(Effect.provide(toolRunnerLayer())))
    expect(out.before).toEqual([])
    expect(out.during.listed).toEqual(["weather/current"])
    expect(out.during.result.structuredContent).toEqual({ city: "Oslo", tempC: 21 })
    expect(out.after).toEqual([])
    expect(out.gone).toBe("gone: weather/current")
    expect(closed).toBe(1)
  })

  it("a handler's requirements come from the Layer context the backend is registered in", async () => {
    const HelloBackend = backendLayer(
      Effect.map(bindHandlers([hello]), (defs) => definitionBackend(defs, { name: "hello" })),
    )
    const GreeterLive = Layer.succeed(Greeter, { greet: (name: string) => `Hej ${name}!` })
    const App = HelloBackend.pipe(Layer.provideMerge(toolRunnerLayer()), Layer.provide(GreeterLive))
    const text = await Effect.runPromise(
      Effect.gen(function* () {
        const tools = yield* EffectToolService
        const result = yield* tools.callTool({ name: "hello/greet", arguments: { name: "Ada" } })
        return result.content
      }).pipe(Effect.provide(App)),
    )
    expect(text).toEqual([{ type: "text", text: "Hej Ada!" }])
  })

  it("failures are typed: catchTag handles them and nothing is a defect", async () => {
    const program = Effect.gen(function* () {
      const runner = yield* EffectToolRunner
      const notFound = yield* runner
        .callTool({ name: "weather/currnt", arguments: {} })
        .pipe(Effect.catchTag("ToolNotFound", (e) => Effect.succeed(e.suggestions)))
      const invalid = yield* runner
        .callTool({ name: "weather/current", arguments: { city: 5 } })
        .pipe(Effect.catchTag("InvalidArguments", (e) => Effect.succeed(e.issues.map((i) => i.path))))
      return { notFound, invalid }
    })
    const App = backendLayer(definitionBackend([weather], { name: "weather" })).pipe(
      Layer.provideMerge(toolRunnerLayer()),
    )
    const out = await Effect.runPromise(program.pipe(Effect.provide(App)))
    expect(out.notFound).toEqual(["weather/current"])
    expect(out.invalid).toEqual(["/city"])
  })

  it("a backend that cannot list its tools fails the Layer with BackendUnavailable", async () => {
    const down = defineBackend({
      name: "down",
      toolSchemas: () => Promise.reject(new Error("ECONNREFUSED")),
      execute: () => textResult("never"),
    })
    const App = backendLayer(down).pipe(Layer.provideMerge(toolRunnerLayer()))
    const error = await Effect.runPromise(
      Effect.flip(Effect.provide(Effect.void, App)).pipe(
        Effect.map((e) => (e instanceof BackendUnavailable ? `${e.backend}: ${e.reason}` : String(e))),
      ),
    )
    expect(error).toBe("down: ECONNREFUSED")
  })

  it("an enricher Layer rewrites arguments while its scope is open", async () => {
    const echo = defineTool({
      id: "util/echo",
      category: "util",
      input: z.object({ text: z.string() }),
      handler: ({ text }) => text,
    })
    const shout = defineEffectEnricher({
      name: "shout",
      categories: ["util"],
      transformArgs: (_id, args) => Effect.succeed({ ...args, text: String(args.text).toUpperCase() }),
    })
    const call = Effect.flatMap(EffectToolRunner, (r) =>
      r.callTool({ name: "util/echo", arguments: { text: "hi" } }),
    ).pipe(Effect.map((r) => r.content))
    const program = Effect.gen(function* () {
      const enriched = yield* Effect.provide(call, enricherLayer(shout))
      const plain = yield* call
      return { enriched, plain }
    })
    const App = backendLayer(definitionBackend([echo], { name: "util" })).pipe(
      Layer.provideMerge(toolRunnerLayer()),
    )
    const out = await Effect.runPromise(program.pipe(Effect.provide(App)))
    expect(out.enriched).toEqual([{ type: "text", text: "HI" }])
    expect(out.plain).toEqual([{ type: "text", text: "hi" }])
  })

  it("interrupting a call aborts the signal its backend sees", async () => {
    let seen: AbortSignal | undefined
    const slow = defineBackend({
      name: "slow",
      toolSchemas: () => [weather],
      requiresApproval: () => false,
      execute: (_call, ctx) =>
        new Promise((resolve) => {
          seen = ctx.signal
          ctx.signal.addEventListener("abort", () => resolve(textResult("stopped")))
        }),
    })
    const App = backendLayer(slow).pipe(Layer.provideMerge(toolRunnerLayer()))
    const outcome = await Effect.runPromise(
      Effect.flatMap(EffectToolRunner, (r) =>
        r.callTool({ name: "weather/current", arguments: { city: "Oslo" } }),
      ).pipe(
        Effect.timeout("30 millis"),
        Effect.map(() => "finished"),
        Effect.catchTag("TimeoutError", () => Effect.succeed("interrupted")),
        Effect.provide(App),
      ),
    )
    expect(outcome).toBe("interrupted")
    expect(seen?.aborted).toBe(true)
  })

  it("the approver comes from its own Layer", async () => {
    const gated = defineTool({ id: "ops/deploy", handler: () => "deployed" })
    const contributions = backendLayer(definitionBackend([gated], { name: "ops", approval: () => true }))
    const call = Effect.flatMap(EffectToolRunner, (r) => r.callTool({ name: "ops/deploy" })).pipe(
      Effect.map(() => "ran"),
      Effect.catchTag("ApprovalRequired", () => Effect.succeed("needs approval")),
    )
    const without = contributions.pipe(Layer.provideMerge(toolRunnerLayer()))
    const withApprover = contributions.pipe(
      Layer.provideMerge(toolRunnerLayer()),
      Layer.provide(approverLayer(approveAll())),
    )
    expect(await Effect.runPromise(call.pipe(Effect.provide(without)))).toBe("needs approval")
    expect(await Effect.runPromise(call.pipe(Effect.provide(withApprover)))).toBe("ran")
  })
})

describe("retry reads the error's retryable property", () => {
  class Flaky extends TaggedToolError("Flaky")<{ readonly attempt: number }> {
    readonly code = "FLAKY"
  }
  retryableByDefault(Flaky)

  it("retries a family member that says it is retryable, not one that says it is not", async () => {
    let attempts = 0
    const flaky = defineBackend({
      name: "flaky",
      toolSchemas: () => [weather],
      requiresApproval: () => false,
      execute: () => {
        attempts++
        if (attempts < 3) throw new Flaky({ attempt: attempts })
        return textResult("ok")
      },
    })
    const runner = createRunner({ backends: [flaky], retry: { baseDelayMs: 1, jitter: 0 } })
    expect((await runner.callTool({ name: "weather/current", arguments: { city: "x" } })).content).toEqual([
      { type: "text", text: "ok" },
    ])
    expect(attempts).toBe(3)

    let final = 0
    const deterministic = defineBackend({
      name: "deterministic",
      toolSchemas: () => [weather],
      requiresApproval: () => false,
      execute: () => {
        final++
        throw new ExecutionFailed({
          toolId: "weather/current",
          cause: { name: "E", message: "exit 1" },
          retryable: false,
        })
      },
    })
    const strict = createRunner({ backends: [deterministic], retry: { baseDelayMs: 1, jitter: 0 } })
    await expect(
      strict.callTool({ name: "weather/current", arguments: { city: "x" } }),
    ).rejects.toBeInstanceOf(ExecutionFailed)
    expect(final).toBe(1)
  })
})
