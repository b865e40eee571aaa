/**
 * Conversion of real MCP tools: the tools `@modelcontextprotocol/server-everything` (from npm, spawned
 * over stdio through the MCP plugin) lists, plus the committed wild cases, exported with
 * toLangChainTools and sent by the real ChatOpenAI to a local OpenAI-compatible server; what arrives is
 * checked by an independent checker of the providers' documented rules. Names are valid, unique and
 * reversible (fast-check).
 */
import type { Tool } from "@toolplane/foundation"
import { fromMcpTool, type McpTool, mcpBackend } from "@toolplane/plugin-mcp"
import {
  emptyService,
  everythingServerCommand,
  offeredTools,
  toolListViolations,
  toolSetArb,
  wildMcpTools,
} from "@toolplane/testkit"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toLangChainTools } from "../src/index.js"
import { chat, server } from "./support.js"

const wild = wildMcpTools() as unknown as McpTool[]

let everything: Tool[] = []
const backend = mcpBackend({ name: "everything", stdio: everythingServerCommand() })

beforeAll(async () => {
  everything = [...(await backend.toolSchemas())]
}, 30_000)
afterAll(() => backend.close())

describe("real MCP tools through LangChain", () => {
  it("every tool of server-everything and of the wild fixture is sent, valid under the documented rules", async () => {
    expect(everything.length).toBeGreaterThanOrEqual(5)
    const wildTools = wild.map((t) => fromMcpTool(t, "wild").value)
    const all = [...everything, ...wildTools]
    const set = await toLangChainTools(emptyService, { tools: all })
    expect(set.warnings.filter((w) => w.feature === "tool")).toEqual([])
    const start = server.requests.length
    server.script = () => ({ text: "ok" })
    await chat().bindTools(set.tools).invoke("hi")
    const sent = offeredTools(server.requests[start])
    expect(sent).toHaveLength(all.length)
    expect(toolListViolations(sent)).toEqual([])
    for (const t of sent) expect(typeof t.description).toBe("string")
    for (const t of all) expect(set.names.idOf(set.names.nameOf(t.id)!)).toBe(t.id)
  })

  it("names are valid, unique and reversible for any set of ids (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(toolSetArb(), async (tools) => {
        const { names, tools: out } = await toLangChainTools(emptyService, { tools })
        expect(new Set(out.map((t) => t.name)).size).toBe(tools.length)
        for (const t of out) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
        for (const { id } of tools) expect(names.idOf(names.nameOf(id)!)).toBe(id)
      }),
      { numRuns: 100 },
    )
  })
})
