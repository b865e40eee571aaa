/**
 * The three meta-tools of search mode (`search_tools`, `describe_tool`, `call_tool`): definitions
 * and input schemas.
 */
import { type JsonSchema, makeTool, type Tool } from "@toolplane/foundation"
import type { DocLevel } from "../toolDocs.js"

export const DOC_LEVELS: readonly DocLevel[] = ["summary", "schema", "full"]
const stringOrList: JsonSchema = {
  anyOf: [
    { type: "string", minLength: 1 },
    { type: "array", items: { type: "string", minLength: 1 }, maxItems: 100 },
  ],
}

export interface MetaTools {
  readonly search: Tool
  readonly describe: Tool
  readonly call: Tool
  readonly list: readonly Tool[]
}

export const metaTools = (
  namespace: string,
  pageSize: number,
  maxResults: number,
  level: DocLevel,
): MetaTools => {
  const search = makeTool({
    namespace,
    name: "search_tools",
    title: "Search tools",
    description:
      "Find tools by what you want to do. Returns tool ids with a one-line summary, best first; pass nextCursor back (same query and filters) for more. Then use describe_tool for a tool's input schema and call_tool to run it.",
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          maxLength: 2000,
          description: "What you want to do, in your own words (an empty query lists tools by id)",
        },
        namespace: { ...stringOrList, description: "Only tools of this namespace (or of one of these)" },
        tags: {
          type: "array",
          items: { type: "string", minLength: 1 },
          maxItems: 100,
          description: "Only tools carrying every one of these tags",
        },
        category: { ...stringOrList, description: "Only tools of this category (or of one of these)" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: maxResults,
          default: pageSize,
          description: `Hits per page (default ${pageSize}, at most ${maxResults})`,
        },
        cursor: {
          type: "string",
          minLength: 1,
          description: "nextCursor of the previous page of the same search",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        hits: {
          type: "array",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              summary: { type: "string" },
              score: { type: "number" },
            },
            required: ["id", "summary", "score"],
          },
        },
        total: { type: "integer" },
        nextCursor: { type: "string" },
      },
      required: ["hits", "total"],
    },
    annotations: { title: "Search tools", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    tags: ["search-mode"],
  })
  const describe = makeTool({
    namespace,
    name: "describe_tool",
    title: "Describe a tool",
    description:
      'Show a tool found with search_tools: "summary" (one line), "schema" (description and input schema, what call_tool needs) or "full" (plus examples, notes, tags and output schema).',
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "Tool id, as returned by search_tools" },
        level: {
          type: "string",
          enum: [...DOC_LEVELS],
          default: level,
          description: `Level of detail (default "${level}")`,
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Describe a tool", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    tags: ["search-mode"],
  })
  const call = makeTool({
    namespace,
    name: "call_tool",
    title: "Call a tool",
    description:
      "Run a tool found with search_tools, with arguments matching the input schema that describe_tool shows. Returns the tool's own result.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "Tool id, as returned by search_tools" },
        arguments: { type: "object", description: "The tool's arguments (default {})" },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Call a tool", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    tags: ["search-mode"],
  })
  const list = [search, describe, call].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return { search, describe, call, list }
}
