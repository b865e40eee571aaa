/**
 * Conversion of real MCP tools: the tools `@modelcontextprotocol/server-everything` (from npm, spawned
 * over stdio through the MCP plugin) lists, plus the committed wild cases, exported with
 * toLangChainTools and sent by the real ChatOpenAI to a local OpenAI-compatible server; what arrives is
 * checked by an independent checker of the providers' documented rules. Names are valid, unique and
 * reversible (fast-check).
 */
import { ChatOpenAI } from "@langchain/openai"
import type { Tool } from "@toolplane/foundation"
import { fromMcpTool, type McpTool, mcpBackend } from "@toolplane/plugin-mcp"
import {
  type ChatServer,
  everythingServerCommand,
  startChatServer,
  toolListViolations,
  wildMcpTools,
} from "@toolplane/testkit"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toLangChainTools } from "../src/index.js"

const wild = wildMcpTools() as unknown as McpTool[]
const none = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) }

let server: ChatServer
let everything: Tool[] = []
const backend = mcpBackend({ name: "everything", stdio: everythingServerCommand() })

beforeAll(async () => {
  server = await startChatServer()
  everything = [...(await backend.toolSchemas())]
}, 30_000)
afterAll(async () => {
  await backend.close()
  await server.close()
})

describe("real MCP tools through LangChain", () => {
  it("every tool of server-everything and of the wild fixture is sent, valid under the documented rules", async () => {
    expect(everything.length).toBeGreaterThanOrEqual(5)
    const wildTools = wild.map((t) => fromMcpTool(t, "wild").value)
    const all = [...everything, ...wildTools]
    const set = await toLangChainTools(none, { tools: all })
    expect(set.warnings.filter((w) => w.feature === "tool")).toEqual([])
    const start = server.requests.length
    server.script = () => ({ text: "ok" })
    await new ChatOpenAI({
      model: "gpt-test",
      apiKey: "sk-test",
      maxRetries: 0,
      configuration: { baseURL: server.baseURL },
    })
      .bindTools(set.tools)
      .invoke("hi")
    const sent = (server.requests[start].tools as any[]).map((t) => ({
      name: t.function.name as string,
      description: t.function.description as unknown,
      parameters: t.function.parameters,
    }))
    expect(sent).toHaveLength(all.length)
    expect(toolListViolations(sent)).toEqual([])
    for (const t of sent) expect(typeof t.description).toBe("string")
    for (const t of all) expect(set.names.idOf(set.names.nameOf(t.id)!)).toBe(t.id)
  })

  it("names are valid, unique and reversible for any set of ids (fast-check)", async () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,40}$/)
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(segment, segment), { maxLength: 25 }), async (pairs) => {
        const ids = [...new Set(pairs.map(([a, b]) => `${a.replace(/\./g, "_")}/${b}`))]
        const tools = ids.map(
          (id) =>
            ({
              id,
              namespace: id.split("/")[0]!,
              name: id.split("/")[1]!,
              inputSchema: { type: "object" },
            }) as Tool,
        )
        const { names, tools: out } = await toLangChainTools(none, { tools })
        expect(new Set(out.map((t) => t.name)).size).toBe(ids.length)
        for (const t of out) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
        for (const id of ids) expect(names.idOf(names.nameOf(id)!)).toBe(id)
      }),
      { numRuns: 100 },
    )
  })
})
