/**
 * `toolplane export --format mcp|openai`: the gateway's tools in a protocol's shape, with every
 * feature-loss warning.
 *
 * @since 0.1.0
 */
import { type FeatureLossWarning, listAllTools } from "@toolplane/foundation"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { json, table } from "../output.js"
import { withGateway } from "./shared.js"

/** @since 0.1.0 */
export const exportCommand = defineCommand({
  name: "export",
  summary: "export the tools [--format mcp|openai] [--json]",
  maxPositionals: 0,
  flags: { json: "boolean", format: "string" },
  flagHelp: {
    format: "mcp|openai  the protocol's tool shape (default mcp)",
    json: "print the whole document as JSON",
  },
  examples: ["export", "export --format openai --json > tools.json"],
  run: async (ctx) => {
    const format = ctx.invocation.values.format ?? "mcp"
    if (format !== "mcp" && format !== "openai")
      throw new UsageError(`--format must be "mcp" or "openai", got "${format}"`)
    return withGateway(ctx, async (gateway) => {
      const tools = await listAllTools(gateway.service)
      let exported: { name: string; description?: string; input?: unknown; output?: unknown }[]
      let warnings: FeatureLossWarning[]
      let body: unknown
      if (format === "mcp") {
        const { toMcpTool } = await import("@toolplane/plugin-mcp")
        const conversions = tools.map((t) => toMcpTool(t, { naming: ctx.config.server.tool_names }))
        exported = conversions.map((c) => ({
          name: c.value.name,
          ...(c.value.description !== undefined ? { description: c.value.description } : {}),
          input: c.value.inputSchema,
          ...(c.value.outputSchema !== undefined ? { output: c.value.outputSchema } : {}),
        }))
        warnings = conversions.flatMap((c) => [...c.warnings])
        body = { format, tools: conversions.map((c) => c.value), warnings }
      } else {
        const { toOpenAITools } = await import("@toolplane/plugin-openai")
        const out = toOpenAITools(tools, { strict: true })
        exported = out.tools.map((t) => {
          const fn = ("function" in t ? t.function : t) as {
            name: string
            description?: string
            parameters?: unknown
          }
          return {
            name: fn.name,
            ...(fn.description !== undefined ? { description: fn.description } : {}),
            input: fn.parameters,
          }
        })
        warnings = [...out.warnings]
        body = { format, tools: out.tools, warnings }
      }
      if (ctx.invocation.values.json) ctx.io.stdout(json(body))
      else {
        // Each tool with its schemas (compact JSON; --json for the whole document).
        const blocks = exported.map((e) =>
          [
            `${e.name}${e.description ? ` — ${e.description.split("\n")[0]}` : ""}`,
            `  input:  ${JSON.stringify(e.input ?? {})}`,
            ...(e.output !== undefined ? [`  output: ${JSON.stringify(e.output)}`] : []),
          ].join("\n"),
        )
        ctx.io.stdout(`${blocks.join("\n\n")}\n\n${exported.length} tools exported as ${format}\n`)
        if (warnings.length > 0)
          ctx.io.stdout(
            `\n${table(
              ["TOOL", "FEATURE", "PATH", "NOTE"],
              warnings.map((w) => [w.toolId ?? "", w.feature, w.path, w.message ?? ""]),
            )}\n\n${warnings.length} feature-loss warnings\n`,
          )
      }
      return EXIT.ok
    })
  },
})
