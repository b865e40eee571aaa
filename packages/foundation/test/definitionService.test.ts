import { describe, expect, it } from "vitest"
import { z } from "zod"
import { defineTool, listAllTools, ToolNotFound } from "../src/index.js"
import { definitionService } from "../src/testing/index.js"

const tool = (id: string) =>
  defineTool({ id, input: z.object({ n: z.number() }), handler: ({ n }) => ({ id, doubled: n * 2 }) })

describe("definitionService", () => {
  it("lists sorted pages, calls through invoke and records calls", async () => {
    const service = definitionService([tool("b/two"), tool("a/one"), tool("c/three")], { pageSize: 2 })
    const first = await service.listTools()
    expect(first.tools.map((t) => t.id)).toEqual(["a/one", "b/two"])
    expect(first.tools[0]).not.toHaveProperty("handler")
    expect((await listAllTools(service)).map((t) => t.id)).toEqual(["a/one", "b/two", "c/three"])
    const result = await service.callTool({ name: "b/two", arguments: { n: 4 } })
    expect(result.structuredContent).toEqual({ id: "b/two", doubled: 8 })
    expect(service.calls.map((c) => c.name)).toEqual(["b/two"])
  })

  it("changes its tools and rejects unknown ids with suggestions", async () => {
    const service = definitionService([tool("a/one")])
    service.add(tool("a/two"))
    expect(service.remove("a/one")).toBe(true)
    expect((await listAllTools(service)).map((t) => t.id)).toEqual(["a/two"])
    const error = await service.callTool({ name: "a/tow", arguments: { n: 1 } }).catch((e) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect((error as ToolNotFound).suggestions).toEqual(["a/two"])
  })
})
