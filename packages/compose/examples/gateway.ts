/**
 * Runnable tour: `pnpm --filter @toolplane/compose example`.
 * A toolset, a skill, and a gateway over an in-process service (foundation pieces only).
 */
import {
  byId,
  defineTool,
  listAllTools,
  makeCursorCodec,
  paginateTools,
  randomCursorKey,
  type ToolService,
  textResult,
  toolOf,
} from "@toolplane/foundation"
import { z } from "zod"
import {
  allowAll,
  denyTags,
  executePlan,
  gatewayStack,
  makePlanner,
  searchModeView,
  skillTool,
  toolset,
} from "../src/index.js"

const definitions = [
  defineTool({
    id: "web/search",
    tags: ["read"],
    annotations: { readOnlyHint: true },
    input: z.object({ q: z.string() }),
    handler: ({ q }) => ({ items: [{ url: `https://example.com/${q}`, title: `All about ${q}` }] }),
  }),
  defineTool({
    id: "web/fetch",
    tags: ["read"],
    annotations: { readOnlyHint: true },
    input: z.object({ url: z.string() }),
    handler: ({ url }) => ({ body: `<html>${url}</html>` }),
  }),
  defineTool({
    id: "docs/search",
    tags: ["read"],
    annotations: { readOnlyHint: true },
    input: z.object({ q: z.string() }),
    handler: ({ q }) => textResult(`docs about ${q}`),
  }),
  defineTool({
    id: "admin/wipe",
    tags: ["admin"],
    annotations: { destructiveHint: true },
    handler: () => "wiped",
  }),
].sort(byId)

// The inner service (in a real gateway: exec's runner).
const codec = makeCursorCodec({ keys: [randomCursorKey()] })
const runner: ToolService = {
  listTools: async (request = {}) =>
    paginateTools(definitions.map(toolOf), { codec, pageSize: 50, cursor: request.cursor }),
  callTool: async (request) => {
    const definition = definitions.find((d) => d.id === request.name)!
    return definition.invoke(request.arguments ?? {}, request.context)
  },
}

// Toolsets
const safe = toolset("safe")
  .fromTools(definitions)
  .hideDestructive()
  .policy(denyTags("admin"), allowAll())
  .build()
console.log("toolset:", safe.ids())

// Skills
const plan = makePlanner({ tools: safe }).plan({
  name: "research",
  inputSchema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  steps: [
    { id: "page", tool: "web/fetch", inputs: { url: { $ref: "search#/items/0/url" } } },
    { id: "search", tool: "web/search", inputs: { q: "{{$input#/topic}}" } },
  ],
})
const run = await executePlan(plan, runner, { input: { topic: "effect" } })
console.log("plan:", plan.order, "ok:", run.ok, "last:", run.results.at(-1)?.result.structuredContent)

// The gateway
let gateway: ToolService
gateway = await gatewayStack(runner, {
  capabilities: safe,
  searchMode: searchModeView((tools) => tools),
  aliases: { "docs/search": "docs/find" },
  composites: [{ name: "search_all", tools: ["web/search", "docs/find"], timeoutMs: 1_000 }],
  tools: [skillTool(plan, () => gateway, { id: "skills/research" })],
})
console.log(
  "gateway lists:",
  (await listAllTools(gateway)).map((t) => t.id),
)
const all = await gateway.callTool({ name: "composite/search_all", arguments: { q: "cursors" } })
console.log(
  "search_all:",
  all.content.map((b) => (b.type === "text" ? b.text : b.type)),
)
const skill = await gateway.callTool({ name: "skills/research", arguments: { topic: "toolsets" } })
console.log("skill:", skill.structuredContent)
await gateway.callTool({ name: "admin/wipe" }).catch((error: Error) => console.log("hidden:", error.message))
