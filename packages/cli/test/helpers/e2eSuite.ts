/**
 * The end-to-end suite shared by e2eStdio.test.ts and e2eHttp.test.ts: the official MCP SDK client
 * against `toolplane serve` (a real subprocess) fronting server-everything (from npm, spawned by the
 * gateway) and a local module.
 */
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  type Progress,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ClientSetup,
  type Connected,
  childEnv,
  connectHttp,
  connectStdio,
  FIXTURES,
  type HttpGateway,
  REPO,
  startHttpGateway,
  stopAllGateways,
  type Transport,
  textOf,
} from "./processes.js"

const CONFIG = join(FIXTURES, "e2e.toml")
const SEARCH_CONFIG = join(FIXTURES, "e2e-search.toml")
const PAGE_SIZE = 5 // [server] page_size of both configs
const LOCAL_TOOLS = ["bulk.tool_0", "bulk.tool_1", "bulk.tool_2", "bulk.tool_3", "bulk.tool_4", "bulk.tool_5"]
  .concat(["math.divide", "notes.echo"])
  .sort()

/** The dotted MCP name's canonical id (namespaces hold no dots). */
const idOf = (name: string) => name.replace(".", "/")

/**
 * The test client declares sampling and answers it; the gateway's MCP client backend declares sampling
 * and elicitation (it forwards them to its callers), so server-everything lists its
 * trigger-sampling-request and trigger-elicitation-request tools to the gateway.
 */
const samplingClient: ClientSetup = {
  capabilities: { sampling: {} },
  setup: (client) =>
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0]?.content as { type: string; text?: string }
      return {
        role: "assistant",
        model: "e2e-model",
        content: { type: "text", text: `sampled by the e2e client: ${first?.text ?? "?"}` },
      }
    }),
}

/** server-everything's own tool names, asked directly (no gateway) by a client with the gateway's capabilities. */
const everythingToolNames = async (): Promise<string[]> => {
  const client = new Client(
    { name: "direct", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  )
  await client.connect(
    new StdioClientTransport({
      command: join(REPO, "packages", "cli", "node_modules", ".bin", "mcp-server-everything"),
      args: ["stdio"],
      env: childEnv(),
      stderr: "ignore",
    }),
  )
  try {
    const names: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      names.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
    } while (cursor)
    return names
  } finally {
    await client.close()
  }
}

const listAllPages = async (client: Client) => {
  const pages: Tool[][] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    pages.push(page.tools)
    cursor = page.nextCursor
    if (pages.length > 100) throw new Error("tools/list does not end")
  } while (cursor)
  return pages
}

export const e2eSuite = (
  transport: Transport,
  options: { readonly httpTransport?: "node" | "sdk" } = {},
): void => {
  const label = options.httpTransport ? `${transport} (${options.httpTransport} transport)` : transport
  describe(`toolplane serve over ${label}: the MCP SDK client, server-everything and a local module`, () => {
    const gateways: HttpGateway[] = []
    let main: Connected
    let search: Connected
    let directNames: string[]
    let served: number | undefined

    const open = async (config: string): Promise<Connected> => {
      if (transport === "stdio") return connectStdio(config, samplingClient)
      const gateway = await startHttpGateway(
        config,
        options.httpTransport ? { args: ["--http-transport", options.httpTransport] } : {},
      )
      gateways.push(gateway)
      if (config === CONFIG) served = gateway.servedTools
      const connected = await connectHttp(gateway.url, gateway.stderr, samplingClient)
      return { ...connected, close: async () => connected.close() }
    }

    beforeAll(async () => {
      const [a, b, names] = await Promise.allSettled([
        open(CONFIG),
        open(SEARCH_CONFIG),
        everythingToolNames(),
      ])
      if (a.status === "fulfilled") main = a.value
      if (b.status === "fulfilled") search = b.value
      for (const r of [a, b, names]) if (r.status === "rejected") throw r.reason
      directNames = (names as PromiseFulfilledResult<string[]>).value
    }, 60_000)

    afterAll(async () => {
      await Promise.all([main?.close(), search?.close()])
      await Promise.all(gateways.map((g) => g.stop()))
      await stopAllGateways()
    }, 20_000)

    it("lists every tool over several pages: sorted, no duplicates, complete (alias and composite applied)", async () => {
      const pages = await listAllPages(main.client)
      expect(pages.length).toBeGreaterThanOrEqual(3)
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(PAGE_SIZE)
      const names = pages.flat().map((t) => t.name)
      const ids = names.map(idOf)
      expect(ids).toEqual([...ids].sort())
      expect(new Set(names).size).toBe(names.length)
      expect(directNames).toContain("get-sum")
      const expected = [
        ...LOCAL_TOOLS,
        ...directNames.filter((n) => n !== "get-sum").map((n) => `everything.${n}`),
        "math.add", // the alias of everything/get-sum
        "composite.echo_all",
      ].sort()
      expect([...names].sort()).toEqual(expected)
      if (served !== undefined) expect(served).toBe(names.length) // the "serving N tools" line
      for (const tool of pages.flat()) {
        expect(tool.inputSchema.type).toBe("object")
        expect(typeof tool.description).toBe("string")
      }
    })

    it("calls a local tool and a server-everything tool", async () => {
      const local = await main.client.callTool({ name: "notes.echo", arguments: { message: "hi" } })
      expect(local.isError).toBeFalsy()
      expect(textOf(local)).toBe("notes echo: hi")
      const remote = await main.client.callTool({ name: "everything.echo", arguments: { message: "hello" } })
      expect(remote.isError).toBeFalsy()
      expect(textOf(remote)).toBe("Echo: hello")
      const structured = await main.client.callTool({ name: "math.divide", arguments: { a: 6, b: 3 } })
      expect(structured.structuredContent).toEqual({ quotient: 2 })
    })

    it("fans a composite tool out to every target", async () => {
      const result = await main.client.callTool({ name: "composite.echo_all", arguments: { message: "fan" } })
      expect(result.isError).toBeFalsy()
      const text = textOf(result)
      expect(text).toContain("Echo: fan") // everything/echo
      expect(text).toContain("notes echo: fan") // notes/echo
    })

    it("routes an alias to its target (math.add → everything/get-sum) and hides the original name", async () => {
      const result = await main.client.callTool({ name: "math.add", arguments: { a: 2, b: 40 } })
      expect(result.isError).toBeFalsy()
      expect(textOf(result)).toMatch(/\b42\b/)
      const original = await main.client
        .callTool({ name: "everything.get-sum", arguments: { a: 1, b: 2 } })
        .then((r) => ({ isError: r.isError === true, text: textOf(r) }))
        .catch((error: Error) => ({ isError: true, text: error.message }))
      expect(original.isError).toBe(true)
      expect(original.text).not.toMatch(/\b3\b/)
    })

    it("forwards server-everything's sampling request (made during a call) to the calling client", async () => {
      const result = await main.client.callTool(
        { name: "everything.trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } },
        CallToolResultSchema,
        { timeout: 20_000 },
      )
      expect(result.isError).toBeFalsy()
      expect(textOf(result)).toContain("sampled by the e2e client:")
      expect(textOf(result)).toContain("say hi")
    })

    it("returns a tool's error as an isError result", async () => {
      const result = await main.client.callTool({ name: "math.divide", arguments: { a: 1, b: 0 } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("division by zero")
    })

    it("rejects bad arguments as an isError result naming the field", async () => {
      const result = await main.client.callTool({ name: "everything.echo", arguments: { message: 42 } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/message/)
    })

    it("passes server-everything's progress notifications through to the client", async () => {
      const progress: Progress[] = []
      const result = await main.client.callTool(
        { name: "everything.trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
        CallToolResultSchema,
        { onprogress: (p) => progress.push(p), timeout: 30_000 },
      )
      expect(result.isError).toBeFalsy()
      expect(textOf(result)).toMatch(/completed/i)
      expect(progress.length).toBeGreaterThanOrEqual(3)
      const values = progress.map((p) => p.progress)
      expect(values).toEqual([...values].sort((a, b) => a - b))
      expect(new Set(values).size).toBe(values.length)
      expect(progress.every((p) => p.total === 4)).toBe(true)
    })

    it("search mode: exactly the three meta-tools, and call_tool reaches a backend tool", async () => {
      const pages = await listAllPages(search.client)
      expect(pages).toHaveLength(1)
      expect(pages[0]!.map((t) => t.name).sort()).toEqual([
        "toolplane.call_tool",
        "toolplane.describe_tool",
        "toolplane.search_tools",
      ])
      const found = await search.client.callTool({
        name: "toolplane.search_tools",
        arguments: { query: "echo back the message" },
      })
      expect(found.isError).toBeFalsy()
      const hits = (found.structuredContent as { hits: { id: string }[] }).hits.map((h) => h.id)
      expect(hits).toEqual(expect.arrayContaining(["everything/echo", "notes/echo"]))
      const described = await search.client.callTool({
        name: "toolplane.describe_tool",
        arguments: { id: "everything/echo" },
      })
      expect(described.isError).toBeFalsy()
      expect(JSON.stringify(described)).toContain("message")
      const called = await search.client.callTool({
        name: "toolplane.call_tool",
        arguments: { id: "everything/echo", arguments: { message: "via search" } },
      })
      expect(called.isError).toBeFalsy()
      expect(textOf(called)).toBe("Echo: via search")
      const failed = await search.client.callTool({
        name: "toolplane.call_tool",
        arguments: { id: "math/divide", arguments: { a: 1, b: 0 } },
      })
      expect(failed.isError).toBe(true)
      expect(textOf(failed)).toContain("division by zero")
    })
  })
}
