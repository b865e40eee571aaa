import { defineEnricher, defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { EffectPrefetcher, EffectToolRunner, prefetcherLayer, toolRunnerLayer } from "../src/index.js"
import { tick } from "./helpers.js"

const executions: string[] = []
const list = defineTool({
  id: "t/list",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => {
    executions.push("list")
    return { ids: ["x"] }
  },
})
const get = defineTool({
  id: "t/get",
  input: z.object({ id: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ id }) => {
    executions.push(`get ${id}`)
    return { id }
  },
})
const links = defineEnricher({
  name: "links",
  categories: [],
  valueModel: (id) =>
    id === "t/list"
      ? { followUps: [{ toolId: "t/get", projection: "/ids", projectionArg: "id" }] }
      : undefined,
})

const program = Effect.gen(function* () {
  const runner = yield* EffectToolRunner
  const prefetcher = yield* EffectPrefetcher
  const context = { callerId: "A" }
  yield* runner.callTool({ name: "t/list", context })
  yield* Effect.promise(() => tick(10))
  const result = yield* runner.callTool({ name: "t/get", arguments: { id: "x" }, context })
  return { result, stats: yield* prefetcher.stats, dropped: yield* prefetcher.invalidate("A") }
})

describe("prefetcherLayer", () => {
  it("turns prefetch on in the runner Layer above it and reads that runner's counters", async () => {
    executions.length = 0
    const App = toolRunnerLayer({ backends: [definitionBackend([list, get])], enrichers: [links] }).pipe(
      Layer.provideMerge(prefetcherLayer({ learning: false })),
    )
    const out = await Effect.runPromise(program.pipe(Effect.provide(App)))
    expect(out.result.structuredContent).toEqual({ id: "x" })
    expect(out.stats).toMatchObject({ calls: 2, issued: 1, hits: 1 })
    expect(out.dropped).toBe(0)
    // The get ran once, speculatively; the caller's call was served from it.
    expect(executions).toEqual(["list", "get x"])
  })

  it("the runner's own prefetch options win; the Layer's prefetcher still reads that runner", async () => {
    executions.length = 0
    const App = toolRunnerLayer({
      backends: [definitionBackend([list, get])],
      enrichers: [links],
      prefetch: { declared: false, learning: false },
    }).pipe(Layer.provideMerge(prefetcherLayer({ learning: false })))
    const out = await Effect.runPromise(program.pipe(Effect.provide(App)))
    // Declared links off in the runner's options: nothing was prefetched, both calls ran for real.
    expect(out.stats).toMatchObject({ calls: 2, issued: 0, hits: 0 })
    expect(executions).toEqual(["list", "get x"])
  })

  it("without the Layer's runner the counters are zero; without the Layer nothing is prefetched", async () => {
    const alone = await Effect.runPromise(
      Effect.gen(function* () {
        return yield* (yield* EffectPrefetcher).stats
      }).pipe(Effect.provide(prefetcherLayer())),
    )
    expect(alone).toMatchObject({ calls: 0, issued: 0, hits: 0 })
    executions.length = 0
    const plain = toolRunnerLayer({ backends: [definitionBackend([list, get])], enrichers: [links] })
    const runner = await Effect.runPromise(
      Effect.gen(function* () {
        const r = yield* EffectToolRunner
        yield* r.callTool({ name: "t/list", context: { callerId: "A" } })
        yield* Effect.promise(() => tick(10))
        return r.plain
      }).pipe(Effect.provide(plain)),
    )
    expect(runner.prefetch).toBeUndefined()
    expect(executions).toEqual(["list"])
  })
})
