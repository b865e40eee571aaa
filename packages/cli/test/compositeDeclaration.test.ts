/**
 * Code mode declares a composite tool by what its call resolves to in a program (`{ results }`, the
 * composite's structured content), not as `Promise<string>`.
 */
import { gatewayStack } from "@toolplane/compose"
import { createRunner, toolDeclaration } from "@toolplane/exec"
import { defineTool, listAllTools } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"

const echo = (id: string) =>
  defineTool({
    id,
    input: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    annotations: { readOnlyHint: true },
    handler: async (args: Record<string, unknown>) => `${id}: ${String(args.message)}`,
  })

describe("a composite tool in code mode", () => {
  it("is declared as resolving to { results }, which is what a program gets", async () => {
    const runner = createRunner({
      backends: [definitionBackend([echo("a/echo"), echo("b/echo")], { name: "echoes" })],
    })
    const service = await gatewayStack(runner, {
      composites: [{ name: "both", tools: ["a/echo", "b/echo"] }],
    })
    const composite = (await listAllTools(service)).find((t) => t.id === "composite/both")!
    const declaration = toolDeclaration(composite)
    expect(declaration).not.toMatch(/Promise<string>$/)
    expect(declaration).toMatch(/Promise<\{ results: \{ tool: string; ok: boolean;.*\}\[\] \}>$/)
    const result = await service.callTool({ name: "composite/both", arguments: { message: "hi" } })
    expect(result.structuredContent).toEqual({
      results: [
        { tool: "a/echo", ok: true },
        { tool: "b/echo", ok: true },
      ],
    })
  })
})
