import { createRunner } from "@toolplane/exec"
import {
  ApprovalRequired,
  Cancelled,
  CurrentContext,
  defineTool,
  InvalidArguments,
  InvalidTool,
  makeContext,
  ToolConflict,
  ToolNotFound,
} from "@toolplane/foundation"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { localBackend, needsApproval } from "../src/index.js"

const add = defineTool({
  id: "math/add",
  input: z.object({ a: z.number(), b: z.number() }),
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => ({ sum: a + b }),
})
const asyncTool = defineTool({
  id: "math/slow_double",
  input: z.object({ n: z.number() }),
  handler: async ({ n }) => n * 2,
})
const effectTool = defineTool({
  id: "util/who",
  handler: () =>
    Effect.gen(function* () {
      const ctx = yield* CurrentContext
      return { callId: ctx.callId }
    }),
})

describe("localBackend", () => {
  it("serves sync, async and Effect handlers", async () => {
    const backend = localBackend([add, asyncTool, effectTool])
    expect(backend.name).toBe("math+util")
    expect(
      (await backend.execute({ toolId: "math/add", arguments: { a: 1, b: 2 } }, makeContext()))
        .structuredContent,
    ).toEqual({ sum: 3 })
    expect(
      (await backend.execute({ toolId: "math/slow_double", arguments: { n: 4 } }, makeContext())).content,
    ).toEqual([{ type: "text", text: "8" }])
    expect(
      (await backend.execute({ toolId: "util/who", arguments: {} }, makeContext({ callId: "c9" })))
        .structuredContent,
    ).toEqual({ callId: "c9" })
  })

  it("validates unless the call says it is validated", async () => {
    const backend = localBackend([add])
    await expect(
      backend.execute({ toolId: "math/add", arguments: { a: "1", b: 2 } }, makeContext()),
    ).rejects.toBeInstanceOf(InvalidArguments)
    const trusted = await backend.execute(
      { toolId: "math/add", arguments: { a: 1, b: 2 }, validated: true },
      makeContext(),
    )
    expect(trusted.structuredContent).toEqual({ sum: 3 })
  })

  it("fails unknown tools with suggestions, refuses non-definitions and duplicate ids", async () => {
    const backend = localBackend([add])
    const error = await backend.execute({ toolId: "math/ad", arguments: {} }, makeContext()).catch((e) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect(error.suggestions).toEqual(["math/add"])
    expect(() => localBackend([{ id: "x/y" } as never])).toThrow(InvalidTool)
    expect(() => localBackend([add, add])).toThrow(ToolConflict)
  })

  it("requires approval by default except for read-only tools, configurable", async () => {
    const destructive = defineTool({
      id: "fs/rm",
      annotations: { readOnlyHint: true, destructiveHint: true },
      handler: () => "",
    })
    const auto = localBackend([add, asyncTool, destructive])
    expect(await auto.requiresApproval("math/add")).toBe(false)
    expect(await auto.requiresApproval("math/slow_double")).toBe(true)
    expect(await auto.requiresApproval("fs/rm")).toBe(true)
    expect(await auto.requiresApproval("unknown/tool")).toBe(true)
    expect(await localBackend([asyncTool], { approval: "never" }).requiresApproval("math/slow_double")).toBe(
      false,
    )
    expect(await localBackend([add], { approval: "always" }).requiresApproval("math/add")).toBe(true)
    const custom = localBackend([add, asyncTool], { approval: (t) => t.id === "math/add" })
    expect(await custom.requiresApproval("math/add")).toBe(true)
    expect(await custom.requiresApproval("math/slow_double")).toBe(false)
    expect(needsApproval(add)).toBe(false)
  })

  it("works with the runner: read-only tools run, others need an approver", async () => {
    const runner = createRunner({ backends: [localBackend([add, asyncTool])] })
    expect(
      (await runner.callTool({ name: "math/add", arguments: { a: 2, b: 3 } })).structuredContent,
    ).toEqual({ sum: 5 })
    await expect(runner.callTool({ name: "math/slow_double", arguments: { n: 1 } })).rejects.toBeInstanceOf(
      ApprovalRequired,
    )
  })

  it("adds and removes tools at run time and the runner follows", async () => {
    const backend = localBackend([add], { name: "dyn" })
    const runner = createRunner({ backends: [backend] })
    expect((await runner.listAll()).map((t) => t.id)).toEqual(["math/add"])
    backend.add(
      defineTool({
        id: "math/neg",
        annotations: { readOnlyHint: true },
        input: z.object({ n: z.number() }),
        handler: ({ n }) => -n,
      }),
    )
    await new Promise((r) => setTimeout(r, 5))
    expect((await runner.listAll()).map((t) => t.id)).toEqual(["math/add", "math/neg"])
    expect((await runner.callTool({ name: "math/neg", arguments: { n: 2 } })).content).toEqual([
      { type: "text", text: "-2" },
    ])
    expect(backend.remove("math/add")).toBe(true)
    await new Promise((r) => setTimeout(r, 5))
    await expect(runner.callTool({ name: "math/add", arguments: { a: 1, b: 1 } })).rejects.toBeInstanceOf(
      ToolNotFound,
    )
  })

  it("passes the call's signal to the handler and fails a cancelled call", async () => {
    let sawAbort = false
    const waiter = defineTool({
      id: "w/wait",
      handler: (_a, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true
            resolve("stopped")
          }),
        ),
    })
    const backend = localBackend([waiter])
    const controller = new AbortController()
    const call = backend.execute(
      { toolId: "w/wait", arguments: {} },
      makeContext({ signal: controller.signal }),
    )
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(Cancelled)
    expect(sawAbort).toBe(true)
  })

  it("runs validated calls without revalidating, with the same result and error rules", async () => {
    const { ExecutionFailed, RateLimited } = await import("@toolplane/foundation")
    const throwsSync = defineTool({
      id: "e/sync",
      handler: () => {
        throw new TypeError("sync boom")
      },
    })
    const rejects = defineTool({
      id: "e/async",
      handler: async () => {
        throw new Error("async boom")
      },
    })
    const typed = defineTool({
      id: "e/typed",
      handler: async () => {
        throw new RateLimited({ key: "upstream" })
      },
    })
    const effFail = defineTool({
      id: "e/effect",
      handler: () => Effect.fail(new RateLimited({ key: "eff" })),
    })
    const backend = localBackend([add, asyncTool, effectTool, throwsSync, rejects, typed, effFail])
    const run = (toolId: string, args: Record<string, unknown> = {}, ctx = makeContext()) =>
      backend.execute({ toolId, arguments: args, validated: true }, ctx)
    expect((await run("math/add", { a: 2, b: 2 })).structuredContent).toEqual({ sum: 4 })
    expect((await run("math/slow_double", { n: 5 })).content).toEqual([{ type: "text", text: "10" }])
    expect((await run("util/who", {}, makeContext({ callId: "c7" }))).structuredContent).toEqual({
      callId: "c7",
    })
    const sync = await run("e/sync").catch((e) => e)
    expect(sync).toBeInstanceOf(ExecutionFailed)
    expect(sync.cause).toMatchObject({ name: "TypeError", message: "sync boom" })
    expect(await run("e/async").catch((e) => e)).toBeInstanceOf(ExecutionFailed)
    expect(await run("e/typed").catch((e) => e)).toBeInstanceOf(RateLimited)
    const eff = await run("e/effect").catch((e) => e)
    expect(eff).toBeInstanceOf(RateLimited)
    expect(eff.key).toBe("eff")
    const controller = new AbortController()
    const late = defineTool({
      id: "e/late",
      handler: async () => {
        controller.abort()
        return "too late"
      },
    })
    const lateBackend = localBackend([late])
    await expect(
      lateBackend.execute(
        { toolId: "e/late", arguments: {}, validated: true },
        makeContext({ signal: controller.signal }),
      ),
    ).rejects.toBeInstanceOf(Cancelled)
  })
})
