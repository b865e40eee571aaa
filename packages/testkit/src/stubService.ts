/**
 * A small tool service built from foundation alone (defineTool + definitionService), standing in for the
 * runner in the provider plugins' client tests, and plain tools for it (no delays, no annotations: the
 * runner-backed tools of tools.ts are for tests that need the real pipeline). Tools listed in
 * `needsApproval` fail with `ApprovalRequired`, as the runner's approval gate would; `stats` records how
 * many calls ran at once.
 */
import {
  ApprovalRequired,
  defineTool,
  image,
  type ToolDefinition,
  type ToolService,
  text,
} from "@toolplane/foundation"
import { definitionService } from "@toolplane/foundation/fixtures"
import { z } from "zod"

/**
 * What {@link stubService} returns: the service, the calls it received and the most calls at once.
 *
 * @since 0.1.0
 */
export interface StubService {
  readonly service: ToolService
  readonly calls: { name: string; arguments: unknown }[]
  readonly stats: { inflight: number; maxInflight: number }
}

/**
 * A tool service over `definitions` (listed `pageSize` a page, default 2), recording calls.
 *
 * @since 0.1.0
 */
export const stubService = (
  definitions: readonly ToolDefinition<any>[],
  options: {
    readonly needsApproval?: readonly string[]
    readonly pageSize?: number
    readonly delayMs?: number
  } = {},
): StubService => {
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

/**
 * A service without tools, for exports that are handed their tools (`{ tools }`) and never call it.
 *
 * @since 0.1.0
 */
export const emptyService: ToolService = {
  listTools: async () => ({ tools: [] }),
  callTool: async () => ({ content: [] }),
}

/**
 * A 1x1 PNG, base64.
 *
 * @since 0.1.0
 */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

/**
 * The plain tools: a weather lookup, an adder, a tool that always fails, a deploy (to list in
 * `needsApproval`) and a chart that returns text and an image.
 *
 * @since 0.1.0
 */
export const stubTools = {
  weather: defineTool({
    id: "weather/current",
    description: "Current weather for a city",
    input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).optional() }),
    handler: async ({ city, units }) => ({ city, units: units ?? "c", temp: city === "Oslo" ? 4 : 21 }),
  }),
  add: defineTool({
    id: "math/add",
    description: "Adds two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => String(a + b),
  }),
  explode: defineTool({
    id: "ops/explode",
    description: "Always fails",
    input: z.object({}),
    handler: () => {
      throw new Error("the reactor is offline")
    },
  }),
  deploy: defineTool({
    id: "ops/deploy",
    description: "Deploys (needs approval)",
    input: z.object({ env: z.string() }),
    handler: () => "deployed",
  }),
  chart: defineTool({
    id: "viz/chart",
    description: "Draws a chart",
    input: z.object({ title: z.string() }),
    handler: ({ title }) => ({ content: [text(`chart: ${title}`), image(PNG, "image/png")] }),
  }),
} as const
