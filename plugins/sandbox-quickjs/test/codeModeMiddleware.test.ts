/**
 * compose's code-mode middleware with the real executor: the listing becomes execute_code (+ search for
 * a toolset over the declaration cap), programs call the layer below, other names pass through.
 */
import { codeMode } from "@toolplane/compose"
import { codeExecutor, createRunner } from "@toolplane/exec"
import { applyMiddleware, defineTool, InvalidArguments, SandboxError } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { quickJsSandbox } from "../src/index.js"

const defs = Array.from({ length: 40 }, (_, i) =>
  defineTool({
    id: `bulk${i % 4}/tool_${i}`,
    description: i === 17 ? "Convert a temperature from celsius to fahrenheit." : `Bulk tool number ${i}.`,
    input: z.object({ x: z.number() }),
    handler: ({ x }) => `tool_${i}(${x})`,
  }),
)
const runner = createRunner({ backends: [definitionBackend(defs, { name: "bulk" })] })
const sandbox = quickJsSandbox({ maxWorkers: 1 })
afterAll(() => sandbox.close())

describe("codeMode middleware", () => {
  it("lists execute_code with the whole declaration when it fits", async () => {
    const service = applyMiddleware(runner, codeMode({ executor: codeExecutor({ sandbox }) }))
    const { tools } = await service.listTools()
    expect(tools.map((t) => t.id)).toEqual(["toolplane/execute_code"])
    expect(tools[0]!.description).toContain("tool_17(args: { x: number }): Promise<string>")
    const result = await service.callTool({
      name: "toolplane/execute_code",
      arguments: { code: "return await Promise.all([1, 2].map((x) => tools.bulk1.tool_1({ x })))" },
    })
    expect(result.structuredContent).toEqual({ result: ["tool_1(1)", "tool_1(2)"], logs: [] })
    const direct = await service.callTool({ name: "bulk1/tool_5", arguments: { x: 3 } })
    expect(direct.content).toEqual([{ type: "text", text: "tool_5(3)" }])
    await expect(service.callTool({ name: "toolplane/execute_code", arguments: {} })).rejects.toBeInstanceOf(
      InvalidArguments,
    )
    await expect(
      service.callTool({ name: "toolplane/execute_code", arguments: { code: "throw new RangeError('r')" } }),
    ).rejects.toBeInstanceOf(SandboxError)
  })

  it("adds search and tools.$search when the toolset exceeds the cap", async () => {
    const service = applyMiddleware(
      runner,
      codeMode({ executor: codeExecutor({ sandbox, maxDeclarationChars: 1500 }), namespace: "code" }),
    )
    const { tools } = await service.listTools()
    expect(tools.map((t) => t.id)).toEqual(["code/execute_code", "code/search"])
    expect(tools[0]!.description).toContain("40 tools, too many to list")
    expect(tools[0]!.description).not.toContain("tool_17(")
    const found = await service.callTool({
      name: "code/search",
      arguments: { query: "celsius to fahrenheit", limit: 1 },
    })
    expect(found.structuredContent).toEqual({
      tools: [
        {
          id: "bulk1/tool_17",
          call: "tools.bulk1.tool_17",
          declaration:
            "/** Convert a temperature from celsius to fahrenheit. */ tool_17(args: { x: number }): Promise<string>",
        },
      ],
    })
    const ran = await service.callTool({
      name: "code/execute_code",
      arguments: {
        code: "const [hit] = await tools.$search('celsius fahrenheit', 1); return await eval(hit.call)({ x: 100 })",
      },
    })
    expect((ran.structuredContent as { result: string }).result).toBe("tool_17(100)")
  })
})
