/**
 * A small tool service built from foundation alone (defineTool + paginateTools + invoke), standing in for
 * the runner in these tests. Tools listed in `needsApproval` fail with ApprovalRequired, as the runner's
 * approval gate would.
 */
import { ApprovalRequired, defineTool, type ToolDefinition, type ToolService } from "@toolplane/foundation"
import { definitionService } from "@toolplane/foundation/testing"
import { z } from "zod"

export const serviceOf = (
  definitions: readonly ToolDefinition<any>[],
  options: { readonly needsApproval?: readonly string[]; readonly pageSize?: number } = {},
): ToolService & { calls: { name: string; arguments: unknown }[] } => {
  const inner = definitionService(definitions, { pageSize: options.pageSize ?? 2 })
  const calls: { name: string; arguments: unknown }[] = []
  return {
    calls,
    listTools: (request) => inner.listTools(request),
    callTool: async (request) => {
      calls.push({ name: request.name, arguments: request.arguments })
      if (options.needsApproval?.includes(request.name)) throw new ApprovalRequired({ toolId: request.name })
      return inner.callTool(request)
    },
  }
}

export const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).optional() }),
  handler: async ({ city, units }) => ({ city, units: units ?? "c", temp: city === "Oslo" ? 4 : 21 }),
})

export const add = defineTool({
  id: "math/add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => String(a + b),
})

export const explode = defineTool({
  id: "ops/explode",
  description: "Always fails",
  input: z.object({}),
  handler: () => {
    throw new Error("the reactor is offline")
  },
})

export const deploy = defineTool({
  id: "ops/deploy",
  description: "Deploys (needs approval)",
  input: z.object({ env: z.string() }),
  handler: () => "deployed",
})

export const allDefinitions = [weather, add, explode, deploy]
export const testService = () => serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })
