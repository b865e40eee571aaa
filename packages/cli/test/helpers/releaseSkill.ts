/**
 * The two-step `release` skill the durable-task tests run: `ci/build` (read-only, 300 ms) then
 * `ci/deploy` (destructive, so a durable runner asks before it), with the versions deployed recorded.
 */
import { defineSkill } from "@toolplane/compose"
import { defineTool } from "@toolplane/foundation"

export const releaseSkill = () => {
  const deployed: unknown[] = []
  const build = defineTool({
    id: "ci/build",
    input: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
    annotations: { readOnlyHint: true },
    handler: async (args: Record<string, unknown>) => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      return { version: args.version }
    },
  })
  const deploy = defineTool({
    id: "ci/deploy",
    input: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
    annotations: { destructiveHint: true },
    handler: async (args: Record<string, unknown>) => {
      deployed.push(args.version)
      return { deployed: args.version }
    },
  })
  const release = defineSkill({
    name: "release",
    inputSchema: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
    steps: [
      { id: "build", tool: "ci/build", inputs: { version: { $ref: "$input#/version" } } },
      { id: "deploy", tool: "ci/deploy", inputs: { version: { $ref: "build#/version" } } },
    ],
  })
  return { build, deploy, release, deployed }
}
