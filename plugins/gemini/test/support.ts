/** The testkit's stub service and plain tools, plus a tool whose schema needs every Gemini conversion. */
import { defineTool } from "@toolplane/foundation"
import { stubService, stubTools } from "@toolplane/testkit"
import { z } from "zod"

export { PNG, stubService as serviceOf } from "@toolplane/testkit"

export const allDefinitions = Object.values(stubTools)
export const testService = () => stubService(allDefinitions, { needsApproval: ["ops/deploy"] })

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
