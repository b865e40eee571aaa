/**
 * The runnable example of the READMEs: defineTool + localBackend + createRunner + callTool.
 * Run: `pnpm --filter @toolplane/plugin-local example`.
 */

import { allowList, createRunner } from "@toolplane/exec"
import { ApprovalRequired, defineTool } from "@toolplane/foundation"
import { z } from "zod"
import { localBackend } from "../src/index.js"

export const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string().min(2) }),
  annotations: { readOnlyHint: true },
  handler: async ({ city }) => ({ city, tempC: 21 }),
})

export const deploy = defineTool({
  id: "ops/deploy",
  input: z.object({ service: z.string() }),
  handler: async ({ service }, ctx) => {
    ctx.reportProgress({ progress: 1, total: 1, message: `deployed ${service}` })
    return `deployed ${service}`
  },
})

export const main = async (log: (...values: unknown[]) => void = console.log): Promise<void> => {
  const unapproved = createRunner({ backends: [localBackend([weather, deploy])] })
  const result = await unapproved.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
  log("weather/current ->", result.structuredContent)
  const refused = await unapproved
    .callTool({ name: "ops/deploy", arguments: { service: "api" } })
    .catch((e) => e)
  log("ops/deploy without an approver ->", refused instanceof ApprovalRequired ? refused._tag : refused)

  const runner = createRunner({ backends: [localBackend([weather, deploy])], approver: allowList(["ops/*"]) })
  const deployed = await runner.callTool({
    name: "ops/deploy",
    arguments: { service: "api" },
    context: { timeoutMs: 30_000, onProgress: (p) => log("progress:", p.message) },
  })
  log("ops/deploy with an allow-list ->", deployed.content)
  log(
    "tools:",
    (await runner.listAll()).map((t) => t.id),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
