import {
  ApprovalRequired,
  defineBackend,
  defineEnricher,
  defineTool,
  EffectToolService,
  InvalidArguments,
  InvalidCursor,
  InvalidOutput,
  makeTool,
  type Progress,
  ToolConflict,
  ToolNotFound,
  textResult,
} from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect, Layer } from "effect"
import { describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { approveAll, createRunner, EffectToolRunner, toolRunnerLayer } from "../src/index.js"
import { SECRET } from "./helpers.js"

const weather = defineTool({
  id: "weather/current",
  description: "Current weather",
  input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).default("c") }),
  annotations: { readOnlyHint: true },
  handler: ({ city, units }) => ({ city, units, temp: 21 }),
})

const many = Array.from({ length: 7 }, (_, i) =>
  defineTool({ id: `ns/t${i}`, handler: () => `t${i}` }),
).reverse()

describe("runner basics", () => {
  it("calls a tool through the pipeline, applying the tool's own defaults", async () => {
    const runner = createRunner({ backends: [definitionBackend([weather])] })
    const result = await runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
    expect(result.structuredContent).toEqual({ city: "Oslo", units: "c", temp: 21 })
  })

  it("lists tools sorted by id, without handlers, paginated with signed cursors", async () => {
    const runner = createRunner({ backends: [definitionBackend(many)], pageSize: 3, cursorSecret: SECRET })
    const first = await runner.listTools()
    expect(first.tools.map((t) => t.id)).toEqual(["ns/t0", "ns/t1", "ns/t2"])
    expect(first.tools[0]).not.toHaveProperty("handler")
    expect(first.nextCursor).toMatch(/^v1\./)
    const all = await runner.listAll()
    expect(all.map((t) => t.id)).toEqual(["ns/t0", "ns/t1", "ns/t2", "ns/t3", "ns/t4", "ns/t5", "ns/t6"])
    const tampered = `${first.nextCursor!.slice(0, -3)}${first.nextCursor!.endsWith("AAA") ? "BBB" : "AAA"}`
    await expect(runner.listTools({ cursor: tampered })).rejects.toBeInstanceOf(InvalidCursor)
    // a listing cursor issued to one caller is refused to another
    const mine = await runner.listTools({ context: { callerId: "alice" } })
    await expect(
      runner.listTools({ cursor: mine.nextCursor!, context: { callerId: "bob" } }),
    ).rejects.toBeInstanceOf(InvalidCursor)
  })

  it("fails an unknown tool with ToolNotFound and suggestions", async () => {
    const runner = createRunner({ backends: [definitionBackend([weather])] })
    const error = await runner.callTool({ name: "weather/curent", arguments: {} }).catch((e) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect(error.suggestions).toContain("weather/current")
  })

  it("never lets invalid arguments reach the backend", async () => {
    const execute = vi.fn(async (_call: unknown, _ctx: unknown) => textResult("ran"))
    const backend = defineBackend({
      name: "spy",
      toolSchemas: () => [
        makeTool({
          id: "spy/tool",
          inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        }),
      ],
      execute,
      requiresApproval: () => false,
    })
    const runner = createRunner({ backends: [backend] })
    for (const args of [{}, { n: "1" }, { n: 1.5 }]) {
      const error = await runner.callTool({ name: "spy/tool", arguments: args }).catch((e) => e)
      expect(error).toBeInstanceOf(InvalidArguments)
    }
    expect(execute).not.toHaveBeenCalled()
    await runner.callTool({ name: "spy/tool", arguments: { n: 2 } })
    expect(execute).toHaveBeenCalledTimes(1)
    expect(execute.mock.calls[0]![0]).toMatchObject({
      toolId: "spy/tool",
      arguments: { n: 2 },
      validated: true,
    })
  })

  it("delivers backend progress to the caller's onProgress", async () => {
    const slow = defineTool({
      id: "job/run",
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 3; i++) ctx.reportProgress({ progress: i, total: 3, message: `step ${i}` })
        return "done"
      },
    })
    const seen: Progress[] = []
    const runner = createRunner({ backends: [definitionBackend([slow])] })
    await runner.callTool({ name: "job/run", context: { onProgress: (p) => seen.push(p) } })
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3])
    expect(seen[2]).toMatchObject({ total: 3, message: "step 3" })
  })

  it("validates output against outputSchema", async () => {
    const good = defineTool({
      id: "out/good",
      output: z.object({ n: z.number() }),
      handler: () => ({ n: 1 }),
    })
    const bad = defineTool({
      id: "out/bad",
      output: z.object({ n: z.number() }),
      handler: () => ({ n: "one" }) as never,
    })
    const none = defineTool({ id: "out/none", output: z.object({ n: z.number() }), handler: () => "text" })
    const runner = createRunner({ backends: [definitionBackend([good, bad, none])] })
    expect((await runner.callTool({ name: "out/good" })).structuredContent).toEqual({ n: 1 })
    await expect(runner.callTool({ name: "out/bad" })).rejects.toBeInstanceOf(InvalidOutput)
    await expect(runner.callTool({ name: "out/none" })).rejects.toBeInstanceOf(InvalidOutput)
  })

  it("reports a conflict between backends as ToolConflict", async () => {
    const runner = createRunner({
      backends: [definitionBackend([weather], { name: "a" }), definitionBackend([weather], { name: "b" })],
    })
    await expect(runner.ready()).rejects.toBeInstanceOf(ToolConflict)
    await expect(runner.callTool({ name: "weather/current" })).rejects.toBeInstanceOf(ToolConflict)
  })

  it("registers and unregisters backends at run time, and reports health", async () => {
    const broken = defineBackend({
      name: "broken",
      toolSchemas: () => {
        throw new Error("cannot list")
      },
      execute: () => textResult(""),
    })
    const runner = createRunner({ backends: [definitionBackend([weather], { name: "w" }), broken] })
    await runner.ready()
    expect((await runner.listAll()).map((t) => t.id)).toEqual(["weather/current"])
    await runner.register(definitionBackend(many, { name: "many" }))
    expect(await runner.listAll()).toHaveLength(8)
    expect(await runner.callTool({ name: "ns/t3" })).toMatchObject({
      content: [{ type: "text", text: "t3" }],
    })
    const health = await runner.health()
    expect(health.w).toMatchObject({ healthy: true, tools: 1 })
    expect(health.broken).toMatchObject({ healthy: false })
    expect(await runner.unregister("many")).toBe(true)
    await expect(runner.callTool({ name: "ns/t3" })).rejects.toBeInstanceOf(ToolNotFound)
    await runner.close()
    expect(await runner.listAll()).toEqual([])
  })
})

describe("enrichers", () => {
  const gh = defineTool({
    id: "github/issue",
    category: "github",
    input: z.object({ title: z.string(), token: z.string().optional() }),
    handler: (args) => args,
  })
  const jira = defineTool({ id: "jira/issue", category: "jira", handler: () => "jira" })
  const plain = defineTool({ id: "util/echo", input: z.object({ v: z.string() }), handler: ({ v }) => v })

  it("transforms arguments in registration order and enriches listed schemas", async () => {
    const order: string[] = []
    const first = defineEnricher({
      name: "first",
      categories: ["github"],
      transformArgs: (_id, args) => {
        order.push("first")
        return { ...args, token: "t" }
      },
      enrichSchema: (tool) => ({ ...tool, description: `${tool.description ?? ""}[first]` }),
    })
    const second = defineEnricher({
      name: "second",
      categories: ["github"],
      transformArgs: (_id, args) => {
        order.push("second")
        return { ...args, title: `${args.title}!`, seenToken: args.token }
      },
      enrichSchema: (tool) => ({ ...tool, description: `${tool.description}[second]` }),
    })
    const runner = createRunner({
      backends: [definitionBackend([gh, jira, plain])],
      enrichers: [first, second],
    })
    const result = await runner.callTool({ name: "github/issue", arguments: { title: "bug" } })
    expect(order).toEqual(["first", "second"])
    expect(result.structuredContent).toEqual({ title: "bug!", token: "t", seenToken: "t" })
    const listed = await runner.listAll()
    expect(listed.find((t) => t.id === "github/issue")?.description).toBe("[first][second]")
    // categories in use: jira is hidden (and not callable), uncategorized tools stay
    expect(listed.map((t) => t.id)).toEqual(["github/issue", "util/echo"])
    await expect(runner.callTool({ name: "jira/issue" })).rejects.toBeInstanceOf(ToolNotFound)
  })

  it("validates against the enriched schema and lets the backend revalidate", async () => {
    const hideToken = defineEnricher({
      name: "hide-v",
      categories: [],
      enrichSchema: (tool) =>
        tool.id === "util/echo" ? { ...tool, inputSchema: { type: "object", properties: {} } } : tool,
      transformArgs: (id, args) => (id === "util/echo" ? { ...args, v: "injected" } : args),
    })
    const runner = createRunner({ backends: [definitionBackend([plain])], enrichers: [hideToken] })
    const listed = await runner.listAll()
    expect(listed[0]!.inputSchema).toEqual({ type: "object", properties: {} })
    const result = await runner.callTool({ name: "util/echo", arguments: {} })
    expect(result.content).toEqual([{ type: "text", text: "injected" }])
  })
})

describe("Effect face", () => {
  it("provides EffectToolRunner and EffectToolService with typed failures", async () => {
    const program = Effect.gen(function* () {
      const runner = yield* EffectToolRunner
      const ok = yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
      const tools = yield* EffectToolService
      const page = yield* tools.listTools()
      const failure = yield* runner
        .callTool({ name: "nope/x" })
        .pipe(Effect.catchTag("ToolNotFound", (e) => Effect.succeed(e._tag)))
      return { ok, page, failure }
    })
    const layer = toolRunnerLayer({ backends: [definitionBackend([weather])], approver: approveAll() })
    const out = await Effect.runPromise(program.pipe(Effect.provide(layer)))
    expect(out.ok.structuredContent).toMatchObject({ city: "Oslo" })
    expect(out.page.tools.map((t) => t.id)).toEqual(["weather/current"])
    expect(out.failure).toBe("ToolNotFound")
  })

  it("uses an EffectApprover from context", async () => {
    const { approverLayer, approveNone } = await import("../src/index.js")
    const gated = defineTool({ id: "danger/run", handler: () => "ran" })
    const program = Effect.gen(function* () {
      const runner = yield* EffectToolRunner
      return yield* runner.callTool({ name: "danger/run" }).pipe(Effect.flip)
    })
    const layer = toolRunnerLayer({ backends: [definitionBackend([gated], { approval: () => true })] }).pipe(
      Layer.provide(approverLayer(approveNone("no"))),
    )
    const error = await Effect.runPromise(program.pipe(Effect.provide(layer)))
    expect(error._tag).toBe("ApprovalDenied")
    const none = toolRunnerLayer({ backends: [definitionBackend([gated], { approval: () => true })] })
    const missing = await Effect.runPromise(program.pipe(Effect.provide(none)))
    expect(missing).toBeInstanceOf(ApprovalRequired)
  })
})
