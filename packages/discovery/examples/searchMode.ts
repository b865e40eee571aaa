/**
 * Search mode, end to end: a tool service with many tools, wrapped with `searchMode`, and a client that
 * sees three meta-tools and goes search_tools → describe_tool → call_tool.
 *
 * Run: pnpm --filter @toolplane/discovery example
 */

import { type SearchToolsResult, searchMode } from "@toolplane/discovery"
import {
  applyMiddleware,
  defineTool,
  makeCursorCodec,
  paginateTools,
  randomCursorKey,
  ToolNotFound,
  type ToolService,
} from "@toolplane/foundation"

// An inner service: a few real tools among hundreds of filler ones.
const tools = [
  defineTool({
    id: "weather/forecast",
    description: "Weather forecast for a city, up to 7 days ahead.",
    input: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city"],
    },
    handler: ({ city, days }) => ({ city, days: days ?? 1, forecast: "sunny" }),
  }),
  defineTool({
    id: "github/create_issue",
    description: "Open a new issue in a GitHub repository.",
    input: { type: "object", properties: { repo: { type: "string" }, title: { type: "string" } } },
    handler: ({ repo, title }) => ({ url: `https://github.com/${repo}/issues/1`, title }),
  }),
  ...Array.from({ length: 500 }, (_, i) =>
    defineTool({ id: `filler/tool_${i}`, description: `Filler tool number ${i}.`, handler: () => "ok" }),
  ),
].sort((a, b) => (a.id < b.id ? -1 : 1))
const byId = new Map(tools.map((t) => [t.id, t]))
const innerCodec = makeCursorCodec({ keys: [randomCursorKey()] })
const inner: ToolService = {
  listTools: async ({ cursor } = {}) => paginateTools(tools, { codec: innerCodec, pageSize: 100, cursor }),
  callTool: async ({ name, arguments: args, context }) => {
    const tool = byId.get(name)
    if (!tool) throw new ToolNotFound({ toolId: name, suggestions: [] })
    return tool.invoke(args ?? {}, context)
  },
}

// Search mode on top. Give the codec a shared secret when several replicas serve the same clients.
const codec = makeCursorCodec({ keys: [randomCursorKey("k1")] })
export const service = applyMiddleware(inner, searchMode({ codec }))

export async function main(log: (line: string) => void = console.log): Promise<unknown> {
  const context = { callerId: "agent-42" }
  const listed = await service.listTools({ context })
  log(`listed: ${listed.tools.map((t) => t.id).join(", ")}`)

  const found = await service.callTool({
    name: "toolplane/search_tools",
    arguments: { query: "what's the weather going to be in Paris", limit: 3 },
    context,
  })
  const { hits, nextCursor } = found.structuredContent as unknown as SearchToolsResult
  log(`search_tools: ${hits.map((h) => `${h.id} (${h.summary})`).join("; ")}`)
  if (nextCursor) {
    const more = await service.callTool({
      name: "toolplane/search_tools",
      arguments: { query: "what's the weather going to be in Paris", limit: 3, cursor: nextCursor },
      context,
    })
    log(`next page: ${(more.structuredContent as unknown as SearchToolsResult).hits.length} hits`)
  }

  const doc = await service.callTool({
    name: "toolplane/describe_tool",
    arguments: { id: hits[0]!.id, level: "schema" },
    context,
  })
  log(`describe_tool: ${JSON.stringify(doc.structuredContent?.inputSchema)}`)

  const result = await service.callTool({
    name: "toolplane/call_tool",
    arguments: { id: hits[0]!.id, arguments: { city: "Paris", days: 2 } },
    context,
  })
  log(`call_tool: ${JSON.stringify(result.structuredContent)}`)
  return result.structuredContent
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
