/**
 * A small tool service built from foundation alone (defineTool + definitionService), standing in for
 * the runner in these tests. Tools listed in `needsApproval` fail with ApprovalRequired, as the runner's
 * approval gate would. `inflight` records how many calls ran at once.
 */
import {
  ApprovalRequired,
  defineTool,
  image,
  type ToolDefinition,
  type ToolService,
  text,
} from "@toolplane/foundation"
import { definitionService } from "@toolplane/foundation/testing"
import { z } from "zod"

export const serviceOf = (
  definitions: readonly ToolDefinition<any>[],
  options: {
    readonly needsApproval?: readonly string[]
    readonly pageSize?: number
    readonly delayMs?: number
  } = {},
) => {
  const inner = definitionService(definitions, { pageSize: options.pageSize ?? 2 })
  const calls: { name: string; arguments: unknown }[] = []
  const stats = { inflight: 0, maxInflight: 0 }
  const service: ToolService = {
    listTools: (request) => inner.listTools(request),
    callTool: async (request) => {
      calls.push({ name: request.name, arguments: request.arguments })
      stats.inflight++
      stats.maxInflight = Math.max(stats.maxInflight, stats.inflight)
      try {
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs))
        if (options.needsApproval?.includes(request.name))
          throw new ApprovalRequired({ toolId: request.name })
        return await inner.callTool(request)
      } finally {
        stats.inflight--
      }
    },
  }
  return { service, calls, stats }
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

/** A 1x1 PNG. */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

export const chart = defineTool({
  id: "viz/chart",
  description: "Draws a chart",
  input: z.object({ title: z.string() }),
  handler: ({ title }) => ({ content: [text(`chart: ${title}`), image(PNG, "image/png")] }),
})

export const allDefinitions = [weather, add, explode, deploy, chart]
export const testService = () => serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })

/** A tool whose schema needs every Gemini conversion: renamed properties, a map, a union, a const. */
export const search = defineTool({
  id: "docs/search",
  description: "Searches documents",
  input: z.object({
    "max-results": z.number().int().gt(0),
    filters: z.record(z.string(), z.string()).optional(),
    mode: z.union([z.literal("fast"), z.literal("deep")]),
    range: z.union([z.object({ from: z.string() }), z.object({ last: z.number() })]).optional(),
  }),
  handler: (args) => ({ received: args }),
})
