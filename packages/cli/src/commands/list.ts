/**
 * `toolplane list`: every tool the gateway serves (after filters, aliases, composites and search mode).
 *
 * @since 0.1.0
 */
import { listAllTools, type Tool } from "@toolplane/foundation"
import { defineCommand, EXIT } from "../command.js"
import { firstLine, json, table } from "../output.js"
import { withGateway } from "./shared.js"
import { VIA_FLAGS, VIA_HELP } from "./via.js"

const hints = (tool: Tool): string => {
  const a = tool.annotations ?? {}
  return [
    a.readOnlyHint ? "read-only" : "",
    a.destructiveHint ? "destructive" : "",
    a.idempotentHint ? "idempotent" : "",
  ]
    .filter(Boolean)
    .join(",")
}

/**
 * The stable JSON form of a tool in `list --json`.
 *
 * @since 0.1.0
 */
export const toolJson = (tool: Tool) => ({
  id: tool.id,
  ...(tool.title !== undefined ? { title: tool.title } : {}),
  ...(tool.description !== undefined ? { description: tool.description } : {}),
  ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  ...(tool.tags !== undefined ? { tags: tool.tags } : {}),
  inputSchema: tool.inputSchema,
  ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
})

/** @since 0.1.0 */
export const listCommand = defineCommand({
  name: "list",
  summary: "list the gateway's tools [--json]",
  maxPositionals: 0,
  flags: { json: "boolean", ...VIA_FLAGS },
  // With --via the configuration file is not needed.
  configOptional: true,
  flagHelp: { json: "print { tools: [...] } with every schema", ...VIA_HELP },
  examples: [
    "list",
    "list --json -c ./gateway.toml",
    "list --via http://127.0.0.1:8808/mcp --token-env TOOLPLANE_TOKEN",
  ],
  run: (ctx) =>
    withGateway(ctx, async (gateway) => {
      const tools = await listAllTools(gateway.service)
      if (ctx.invocation.values.json) ctx.io.stdout(json({ tools: tools.map(toolJson) }))
      else {
        ctx.io.stdout(
          `${table(
            ["TOOL", "HINTS", "DESCRIPTION"],
            tools.map((t) => [t.id, hints(t), firstLine(t.title ?? t.description)]),
          )}\n\n${tools.length} tools\n`,
        )
      }
      return EXIT.ok
    }),
})
