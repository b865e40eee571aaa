import { Effect } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import {
  Cancelled,
  CurrentContext,
  defineTool,
  ExecutionFailed,
  InvalidArguments,
  isToolDefinition,
  page,
  RateLimited,
  textResult,
  toolOf,
} from "../src/index.js"

describe("defineTool", () => {
  const weather = defineTool({
    id: "weather/current",
    description: "Current weather for a city",
    input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).default("c") }),
    annotations: { readOnlyHint: true },
    handler: async ({ city, units }) => {
      expectTypeOf(city).toEqualTypeOf<string>()
      expectTypeOf(units).toEqualTypeOf<"c" | "f">()
      return { city, units, temp: 21 }
    },
  })

  it("derives JSON Schema 2020-12 from zod", () => {
    expect(weather.inputSchema.type).toBe("object")
    expect(weather.inputSchema.properties?.city).toMatchObject({ type: "string", minLength: 2 })
    expect(weather.inputSchema.$schema).toBeUndefined()
    expect(isToolDefinition(weather)).toBe(true)
    expect(Object.keys(toolOf(weather))).not.toContain("handler")
  })

  it("validates, applies defaults and returns structured content", async () => {
    const result = await weather.invoke({ city: "Oslo" })
    expect(result.structuredContent).toEqual({ city: "Oslo", units: "c", temp: 21 })
    expect(result.content[0]).toEqual({
      type: "text",
      text: JSON.stringify({ city: "Oslo", units: "c", temp: 21 }),
    })
  })

  it("rejects bad arguments with InvalidArguments naming path and rule", async () => {
    const error = await weather.invoke({ city: "X", units: "k" }).catch((e) => e)
    expect(error).toBeInstanceOf(InvalidArguments)
    const issues = (error as InvalidArguments).issues
    expect(issues.map((i) => i.path).sort()).toEqual(["/city", "/units"])
    expect(issues.find((i) => i.path === "/city")?.rule).toBe("too_small")
    expect((error as InvalidArguments).message).toContain("weather/current")
  })

  it("accepts raw JSON Schema (draft-07 too)", async () => {
    const add = defineTool({
      id: "math/add",
      input: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      handler: (args) => String((args.a as number) + (args.b as number)),
    })
    expect((await add.invoke({ a: 1, b: 2 })).content).toEqual([{ type: "text", text: "3" }])
    const error = await add.invoke({ a: 1 }).catch((e) => e)
    expect(error).toBeInstanceOf(InvalidArguments)
    expect((error as InvalidArguments).issues[0]).toMatchObject({ path: "/b", rule: "required" })
  })

  it("runs sync, async and Effect handlers", async () => {
    const sync = defineTool({ id: "t/sync", handler: () => "s" })
    const eff = defineTool({
      id: "t/eff",
      handler: () =>
        Effect.gen(function* () {
          const ctx = yield* CurrentContext
          return { callId: ctx.callId }
        }),
    })
    expect((await sync.invoke({})).content[0]).toEqual({ type: "text", text: "s" })
    expect((await eff.invoke({}, { callId: "c-1" })).structuredContent).toEqual({ callId: "c-1" })
  })

  it("wraps thrown errors in ExecutionFailed and passes typed errors through", async () => {
    const boom = defineTool({
      id: "t/boom",
      handler: () => {
        throw new TypeError("kaput")
      },
    })
    const limited = defineTool({
      id: "t/limited",
      handler: () => Effect.fail(new RateLimited({ key: "t/limited" })),
    })
    const e1 = await boom.invoke({}).catch((e) => e)
    expect(e1).toBeInstanceOf(ExecutionFailed)
    expect((e1 as ExecutionFailed).cause).toMatchObject({ name: "TypeError", message: "kaput" })
    expect(await limited.invoke({}).catch((e) => e)).toBeInstanceOf(RateLimited)
  })

  it("cancellation reaches a Promise handler and interrupts an Effect handler", async () => {
    let sawAbort = false
    const slow = defineTool({
      id: "t/slow",
      handler: (_args, ctx) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve("late"), 5_000)
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true
            clearTimeout(timer)
            reject(new Error("aborted"))
          })
        }),
    })
    let interrupted = false
    const slowEffect = defineTool({
      id: "t/slow-effect",
      handler: () =>
        Effect.sleep("5 seconds").pipe(Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))),
    })
    const controller = new AbortController()
    const a = slow.invoke({}, { signal: controller.signal }).catch((e) => e)
    const b = slowEffect.invoke({}, { signal: controller.signal }).catch((e) => e)
    setTimeout(() => controller.abort(), 20)
    expect(await a).toBeInstanceOf(Cancelled)
    expect(await b).toBeInstanceOf(Cancelled)
    expect(sawAbort).toBe(true)
    expect(interrupted).toBe(true)
  })

  it("marks pages with a continuation", async () => {
    const paged = defineTool({
      id: "t/paged",
      paginated: true,
      handler: (_a, ctx) => {
        const at = typeof ctx.resume === "number" ? ctx.resume : 0
        return page(textResult(`page ${at}`), at < 2 ? at + 1 : undefined)
      },
    })
    expect(await paged.invoke({})).toMatchObject({ continuation: 1 })
  })

  it("fails at definition time on a bad definition", () => {
    expect(() => defineTool({ id: "bad id", handler: () => 1 })).toThrow(/tool id/)
    expect(() => defineTool({ id: "t/x", input: z.string(), handler: () => 1 })).toThrow(
      /must describe an object/,
    )
  })
})
