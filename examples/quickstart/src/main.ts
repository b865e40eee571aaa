/**
 * Quickstart: define a tool once, validate arguments against its schema, and call it.
 * Run with `pnpm --filter @toolplane/example-quickstart start`.
 */
import { defineTool, InvalidArguments } from "@toolplane/foundation"
import { z } from "zod"

const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({
    city: z.string().min(2).describe("City name"),
    units: z.enum(["c", "f"]).default("c"),
  }),
  annotations: { readOnlyHint: true },
  handler: async ({ city, units }) => ({ city, units, temp: units === "c" ? 21 : 70 }),
})

console.log(`Tool ${weather.id}: ${weather.description}`)
console.log("Input schema:", JSON.stringify(weather.inputSchema))

const ok = await weather.invoke({ city: "Oslo" })
console.log("Call with { city: 'Oslo' } ->", JSON.stringify(ok.structuredContent))

try {
  await weather.invoke({ city: "X", units: "kelvin" })
} catch (error) {
  if (error instanceof InvalidArguments) {
    console.log("Call with bad arguments ->", error._tag)
    for (const issue of error.issues) console.log(`  ${issue.path}: ${issue.message} (${issue.rule})`)
  } else throw error
}
