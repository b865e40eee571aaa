/**
 * Intent examples that cannot hijack the ranking: the measured hijacking cases, over catalogs built
 * from the real MCP servers the example gateway and users run (listed over stdio with the MCP SDK).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type SearchableTool, Searcher, ToolIndex } from "../src/index.js"

const bin = (name: string) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname

async function listServer(
  command: string,
  args: string[],
  namespace: string,
  env: Record<string, string> = {},
) {
  const client = new Client({ name: "discovery-test", version: "0" })
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      stderr: "ignore",
      env: { ...process.env, ...env } as Record<string, string>,
    }),
  )
  try {
    const { tools } = await client.listTools()
    return tools.map(
      (t): SearchableTool => ({
        id: `${namespace}/${t.name}`,
        namespace,
        name: t.name,
        ...(t.title !== undefined ? { title: t.title } : {}),
        ...(t.description !== undefined ? { description: t.description } : {}),
        inputSchema: t.inputSchema as Record<string, unknown>,
      }),
    )
  } finally {
    await client.close()
  }
}

// The in-process tools of examples/gateway (tools.ts), as their listing shows them.
const gatewayLocalTools: SearchableTool[] = [
  {
    id: "notes/echo",
    namespace: "notes",
    name: "echo",
    description: "Echoes back the message, prefixed with the notes service name",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string", description: "Text to echo back" } },
    },
  },
  {
    id: "text/word_count",
    namespace: "text",
    name: "word_count",
    title: "Word count",
    description: "Counts the words, lines and characters of a text",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    tags: ["text", "analysis"],
    intents: ["how many words are in this paragraph", "count the lines of a document"],
  },
  {
    id: "weather/current",
    namespace: "weather",
    name: "current",
    description: "Current weather for a city (deterministic demo data)",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, units: { type: "string", enum: ["c", "f"] } },
    },
    tags: ["weather"],
    intents: ["what's the temperature in Paris", "is it cold in Oslo today"],
  },
]

let everything: SearchableTool[] = []
let memory: SearchableTool[] = []
let dir = ""

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "discovery-memory-"))
  ;[everything, memory] = await Promise.all([
    listServer(bin("mcp-server-everything"), ["stdio"], "everything"),
    listServer(bin("mcp-server-memory"), [], "memory", { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
  ])
}, 30_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The example gateway's catalog: local tools, the everything server, and the alias math/add → everything/get-sum. */
function gatewayCatalog(): SearchableTool[] {
  const sum = everything.find((t) => t.name === "get-sum")
  if (sum === undefined) throw new Error("everything server lists no get-sum")
  const alias: SearchableTool = { ...sum, id: "math/add", namespace: "math", name: "add" }
  return [...gatewayLocalTools, ...everything.filter((t) => t.name !== "get-sum"), alias]
}

const rank = (s: Searcher, query: string) => s.search(query, { limit: 50 }).hits.map((h) => h.id)

describe("intent examples cannot hijack the ranking", () => {
  it("lists the real servers' tools", () => {
    expect(everything.map((t) => t.name)).toContain("get-sum")
    expect(memory.map((t) => t.name)).toContain("delete_relations")
  })

  it('example gateway: "get a sum" ranks math/add above text/word_count', () => {
    const s = new Searcher(new ToolIndex(gatewayCatalog()))
    const ids = rank(s, "get a sum")
    expect(ids[0]).toBe("math/add")
    const wc = ids.indexOf("text/word_count")
    expect(wc === -1 || wc > ids.indexOf("math/add")).toBe(true)
  })

  it('example gateway: the query "a" does not return word_count through its examples', () => {
    const s = new Searcher(new ToolIndex(gatewayCatalog()))
    expect(rank(s, "a")).not.toContain("text/word_count")
    expect(rank(s, "the")).not.toContain("text/word_count")
  })

  it("examples still decide when their informative words match", () => {
    const s = new Searcher(new ToolIndex(gatewayCatalog()))
    expect(rank(s, "how many words are in my essay")[0]).toBe("text/word_count")
    expect(rank(s, "is it cold in Berlin")[0]).toBe("weather/current")
  })

  it('memory server + a text tool with examples: "delete a relation" ranks memory/delete_relations above text/reverse', () => {
    const reverse: SearchableTool = {
      id: "text/reverse",
      namespace: "text",
      name: "reverse",
      description: "Reverses a string",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      intents: ["reverse a string", "flip a word backwards", "write a sentence from end to start"],
    }
    const s = new Searcher(new ToolIndex([...memory, reverse, ...gatewayLocalTools]))
    const ids = rank(s, "delete a relation")
    expect(ids[0]).toBe("memory/delete_relations")
    const r = ids.indexOf("text/reverse")
    expect(r === -1 || r > ids.indexOf("memory/delete_relations")).toBe(true)
  })

  it("a tool with many examples does not outvote one whose single example matches the query better", () => {
    const many: SearchableTool = {
      id: "files/read",
      namespace: "files",
      name: "read",
      description: "Read a file",
      inputSchema: { type: "object" },
      intents: Array.from({ length: 40 }, (_, i) => `read the file number ${i} of the project`),
    }
    const one: SearchableTool = {
      id: "files/archive",
      namespace: "files",
      name: "archive",
      description: "Archive files",
      inputSchema: { type: "object" },
      intents: ["zip the project folder"],
    }
    const s = new Searcher(new ToolIndex([many, one]))
    expect(rank(s, "zip the project")[0]).toBe("files/archive")
  })
})
