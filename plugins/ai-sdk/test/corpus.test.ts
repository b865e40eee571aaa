/**
 * Conversion of real MCP tools: the tools `@modelcontextprotocol/server-everything` (from npm, spawned
 * over stdio through the MCP plugin) lists, plus the committed wild cases (null annotations, draft-04
 * schemas, never-matching branches), exported with toAISDKTools and sent by the real AI SDK to a local
 * OpenAI-compatible server; what arrives is checked by an independent checker of the providers'
 * documented rules. Names are valid, unique and reversible (fast-check).
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
import { generateText } from "ai"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toAISDKTools } from "../src/index.js"
import { chatModel, server } from "./support.js"

const wild = wildMcpTools() as unknown as McpTool[]

let everything: Tool[] = []
const backend = mcpBackend({ name: "everything", stdio: everythingServerCommand() })

beforeAll(async () => {
  everything = [...(await backend.toolSchemas())]
}, 30_000)
afterAll(() => backend.close())

const sent = async (tools: readonly Tool[]) => {
  const set = await toAISDKTools(emptyService, { tools })
  const start = server.requests.length
  server.script = () => ({ text: "ok" })
  await generateText({ model: chatModel(), tools: set.tools, prompt: "hi" })
  return { set, tools: offeredTools(server.requests[start]) }
}

describe("real MCP tools through the AI SDK", () => {
  it("every tool of server-everything and of the wild fixture is sent, valid under the documented rules", async () => {
    expect(everything.length).toBeGreaterThanOrEqual(5)
    const wildTools = wild.map((t) => fromMcpTool(t, "wild").value)
    const { set, tools } = await sent([...everything, ...wildTools])
    expect(tools).toHaveLength(everything.length + wild.length)
    expect(set.warnings.filter((w) => w.feature === "tool")).toEqual([])
    expect(toolListViolations(tools)).toEqual([])
    // every name leads back to its tool
    for (const t of [...everything, ...wildTools]) expect(set.names.idOf(set.names.nameOf(t.id)!)).toBe(t.id)
    // a null description never goes out as null
    for (const t of tools) expect(t.description === undefined || typeof t.description === "string").toBe(true)
    expect(tools.find((t) => t.name === "wild__list_items")!.description).toBeUndefined()
  })

  it("names are valid, unique and reversible for any set of ids (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(toolSetArb(), async (tools) => {
        const { names, tools: out } = await toAISDKTools(emptyService, { tools })
        const sentNames = Object.keys(out)
        expect(new Set(sentNames).size).toBe(tools.length)
        for (const n of sentNames) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
        for (const { id } of tools) expect(names.idOf(names.nameOf(id)!)).toBe(id)
      }),
      { numRuns: 100 },
    )
  })
})
