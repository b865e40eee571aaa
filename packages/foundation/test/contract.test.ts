import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  defineBackend,
  defineTool,
  makeContext,
  runDefinition,
  suggestToolIds,
  ToolNotFound,
  toolOf,
} from "../src/index.js"
import { backendContract, definitionBackend } from "../src/testing/index.js"

const echo = defineTool({
  id: "demo/echo",
  input: z.object({ text: z.string() }),
  handler: ({ text }) => text,
})

backendContract(
  "a defineBackend over defineTool definitions",
  () =>
    defineBackend({
      name: "demo",
      kind: "local",
      toolSchemas: () => [toolOf(echo)],
      execute: (call, ctx) => {
        if (call.toolId !== echo.id)
          throw new ToolNotFound({ toolId: call.toolId, suggestions: suggestToolIds(call.toolId, [echo.id]) })
        return runDefinition(echo, call, ctx)
      },
      requiresApproval: () => false,
    }),
  {
    sampleCall: { toolId: "demo/echo", arguments: { text: "hi" } },
    invalidCall: { toolId: "demo/echo", arguments: { text: 1 } },
  },
)

backendContract("definitionBackend (foundation/testing)", () => definitionBackend([echo], { name: "demo" }), {
  sampleCall: { toolId: "demo/echo", arguments: { text: "hi" } },
  invalidCall: { toolId: "demo/echo", arguments: { text: 1 } },
})

describe("definitionBackend", () => {
  it("runs definitions, suggests ids for unknown tools and asks `approval` which tools need it", async () => {
    const backend = definitionBackend([echo], { name: "demo", approval: (id) => id === "demo/echo" })
    expect(backend.metadata()).toEqual({ name: "demo", kind: "local" })
    expect(await backend.requiresApproval("demo/echo")).toBe(true)
    expect(await definitionBackend([echo]).requiresApproval("demo/echo")).toBe(false)
    const result = await backend.execute({ toolId: "demo/echo", arguments: { text: "hi" } }, makeContext())
    expect(result.content).toEqual([{ type: "text", text: "hi" }])
    const error = await backend
      .execute({ toolId: "demo/ecoh", arguments: {} }, makeContext())
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect((error as ToolNotFound).suggestions).toEqual(["demo/echo"])
  })
})
