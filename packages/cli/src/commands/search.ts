/**
 * `toolplane search QUERY`: ranks the gateway's tools for a query with the discovery searcher.
 *
 * @since 0.1.0
 */
import type { SearchToolsResult } from "@toolplane/discovery"
import { listAllTools } from "@toolplane/foundation"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { json, table } from "../output.js"
import { withGateway } from "./shared.js"
import { VIA_FLAGS, VIA_HELP } from "./via.js"

/** @since 0.1.0 */
export const searchCommand = defineCommand({
  name: "search",
  synopsis: "QUERY",
  summary: "search the gateway's tools [--limit N] [--json]",
  maxPositionals: Number.POSITIVE_INFINITY,
  flags: { json: "boolean", limit: "string", ...VIA_FLAGS },
  // With --via the configuration file is not needed.
  configOptional: true,
  flagHelp: {
    limit: "N  most hits to show, 1 to 1000 (default 10)",
    json: "print { query, hits } as JSON",
    ...VIA_HELP,
  },
  examples: [
    'search "divide two numbers"',
    "search weather forecast --limit 3 --json",
    'search "divide" --via http://127.0.0.1:8808/mcp',
  ],
  run: async (ctx) => {
    const query = ctx.invocation.positionals.join(" ").trim()
    if (query === "") throw new UsageError("search needs a QUERY")
    const limitText = ctx.invocation.values.limit ?? "10"
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || !Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError(`--limit must be an integer from 1 to 1000, got "${limitText}"`)
    return withGateway(ctx, async (gateway) => {
      let rows: { id: string; score: number; summary: string }[]
      if (ctx.invocation.values.via === undefined && ctx.config.tool_exposure === "search") {
        // The gateway lists only its meta-tools: ask its own search tool, which indexes everything behind it.
        const result = await gateway.service.callTool({
          name: "toolplane/search_tools",
          arguments: { query, limit: Math.min(limit, 50) },
        })
        rows = [...((result.structuredContent as SearchToolsResult | undefined)?.hits ?? [])]
      } else {
        const { Searcher, summaryLine, ToolIndex } = await import("@toolplane/discovery")
        const tools = await listAllTools(gateway.service)
        const searcher = new Searcher(new ToolIndex(tools))
        const { hits } = searcher.search(query, { limit })
        const byId = new Map(tools.map((t) => [t.id, t]))
        rows = hits.map((h) => ({ id: h.id, score: h.score, summary: summaryLine(byId.get(h.id)!) }))
      }
      if (ctx.invocation.values.json) ctx.io.stdout(json({ query, hits: rows }))
      else
        ctx.io.stdout(
          rows.length === 0
            ? `No tool matches "${query}".\n`
            : `${table(
                ["TOOL", "SCORE", "SUMMARY"],
                rows.map((r) => [r.id, r.score.toFixed(2), r.summary]),
              )}\n`,
        )
      return EXIT.ok
    })
  },
})
