/**
 * The committed wild MCP tools (`fixtures/wild-mcp-tools.json`, the `tools/list` wire shape): the cases a
 * corpus of 527 real MCP tools turned up (null annotations and titles, draft-04 boolean
 * `exclusiveMinimum`, a never-matching `{ not: {} }` branch, draft-03 `required` flags, `type: "any"`).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * One tool as a server lists it (loosely typed: the point is what servers really send).
 *
 * @since 0.1.0
 */
export interface WildMcpTool {
  readonly name: string
  readonly [field: string]: unknown
}

/**
 * The path of the fixture file (for a real MCP server that lists it).
 *
 * @since 0.1.0
 */
export const WILD_MCP_TOOLS_PATH: string = join(import.meta.dirname, "..", "fixtures", "wild-mcp-tools.json")

/**
 * The wild tools, read fresh on each call.
 *
 * @since 0.1.0
 */
export const wildMcpTools = (): WildMcpTool[] =>
  (JSON.parse(readFileSync(WILD_MCP_TOOLS_PATH, "utf8")) as { tools: WildMcpTool[] }).tools
