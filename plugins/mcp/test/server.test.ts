import { request as httpRequest } from "node:http"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  CallToolResultSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  McpError,
  type Tool as McpTool,
  type Progress,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { defineTool, toolErrorFromJson } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import {
  createMcpServer,
  ERROR_META_KEY,
  isLoopbackHost,
  type McpHttpServerHandle,
  memoryReplicaBus,
  serveHttp,
  TOOL_META_KEY,
} from "../src/index.js"
import { type DemoService, demoService } from "./fixtures/service.js"

const here = import.meta.dirname
const pluginDir = join(here, "..")

interface Setup {
  client: Client
  /** Makes the server announce a new tool. */
  grow: () => Promise<void>
  /** How many handlers saw their signal abort. */
  abortedCount: () => Promise<number>
  close: () => Promise<void>
}

const listAll = async (client: Client): Promise<{ tools: McpTool[]; pages: number }> => {
  const tools: McpTool[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.listTools(cursor ? { cursor } : {})
    tools.push(...page.tools)
    cursor = page.nextCursor
    pages++
  } while (cursor)
  return { tools, pages }
}

const httpSetup = (transport: "raw" | "node" | "sdk") => async (): Promise<Setup> => {
  let notify = () => {}
  const service: DemoService = demoService({ pageSize: 5 })
  const handle = await serveHttp(service, {
    transport,
    serverInfo: { name: "demo-http", version: "1.0.0" },
    watch: (n) => {
      notify = n
      return () => {}
    },
  })
  const client = new Client({ name: "test", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)))
  return {
    client,
    grow: async () => {
      service.add(defineTool({ id: "demo/grown", handler: () => "grown" }))
      notify()
    },
    abortedCount: async () => service.aborted.length,
    close: async () => {
      await client.close()
      await handle.close()
    },
  }
}

const setups: Record<string, () => Promise<Setup>> = {
  "Streamable HTTP (raw transport)": httpSetup("raw"),
  "Streamable HTTP (node transport)": httpSetup("node"),
  "Streamable HTTP (sdk transport)": httpSetup("sdk"),
  stdio: async () => {
    const client = new Client({ name: "test", version: "0" })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=@toolplane/source", "--import", "tsx", join(here, "fixtures", "stdioServer.ts")],
      cwd: pluginDir,
      stderr: "pipe",
    })
    await client.connect(transport)
    return {
      client,
      grow: async () => {
        await client.callTool({ name: "demo.grow", arguments: {} })
      },
      abortedCount: async () => {
        const result = await client.callTool({ name: "demo.aborted", arguments: {} })
        return (result.structuredContent as { count: number }).count
      },
      close: () => client.close(),
    }
  },
}

describe.each(Object.keys(setups))("serving a ToolService over %s", (kind) => {
  let setup: Setup
  beforeAll(async () => {
    setup = await setups[kind]!()
  })
  afterAll(async () => {
    await setup?.close()
  })

  it("initializes with the current protocol version", () => {
    const info = setup.client.getServerVersion()
    expect(info?.name).toMatch(/^demo-/)
    expect(setup.client.getServerCapabilities()?.tools?.listChanged).toBe(true)
    expect(LATEST_PROTOCOL_VERSION).toBe("2025-11-25")
  })

  it("lists every tool across several pages, passing the service's signed cursors through", async () => {
    const first = await setup.client.listTools()
    expect(first.tools).toHaveLength(5)
    expect(first.nextCursor).toMatch(/^v1\.test\./)
    const { tools, pages } = await listAll(setup.client)
    expect(pages).toBeGreaterThan(1)
    const names = tools.map((t) => t.name)
    expect(names).toContain("demo.echo")
    expect(names).toContain("bulk.t11")
    expect(new Set(names).size).toBe(names.length)
    const echo = tools.find((t) => t.name === "demo.echo")!
    expect(echo.title).toBe("Echo")
    expect(echo.annotations?.readOnlyHint).toBe(true)
    expect(echo._meta?.[TOOL_META_KEY]).toMatchObject({ id: "demo/echo", tags: ["demo"] })
    expect(tools.find((t) => t.name === "demo.add")!.outputSchema).toMatchObject({ type: "object" })
  })

  it("rejects a tampered cursor with Invalid params", async () => {
    const first = await setup.client.listTools()
    const error = await setup.client.listTools({ cursor: `${first.nextCursor}x` }).catch((e) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams)
  })

  it("calls a tool with structured content, through the service's middleware", async () => {
    const result = await setup.client.callTool({ name: "demo.add", arguments: { a: 2, b: 3 } })
    expect(result.structuredContent).toEqual({ sum: 5 })
    expect(result.isError).toBeFalsy()
    expect(result._meta?.["test.dev/via"]).toBe("middleware")
  })

  it("returns invalid arguments as an isError result carrying the typed error", async () => {
    const result = await setup.client.callTool({ name: "demo.add", arguments: { a: "x", b: 3 } })
    expect(result.isError).toBe(true)
    const typed = toolErrorFromJson(result._meta?.[ERROR_META_KEY])
    expect(typed?._tag).toBe("InvalidArguments")
    expect((typed as unknown as { issues: { path: string }[] }).issues[0]!.path).toBe("/a")
  })

  it("returns a failing tool as an isError result without a stack trace", async () => {
    const result = await setup.client.callTool({ name: "demo.fail", arguments: {} })
    expect(result.isError).toBe(true)
    const json = result._meta?.[ERROR_META_KEY] as { _tag: string; cause: Record<string, unknown> }
    expect(json._tag).toBe("ExecutionFailed")
    expect(json.cause.message).toBe("boom")
    expect(json.cause.stack).toBeUndefined()
  })

  it("answers an unknown tool with a JSON-RPC Invalid params error carrying ToolNotFound", async () => {
    const error = await setup.client.callTool({ name: "demo.ecko", arguments: {} }).catch((e) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams)
    // Named as the client sent it, with suggestions it can call (MCP names, not tool ids).
    expect((error as McpError).message).toMatch(
      /^MCP error -32602: Unknown tool "demo\.ecko"; did you mean "demo\.echo"/,
    )
    const typed = toolErrorFromJson(
      ((error as McpError).data as Record<string, unknown> | undefined)?.[ERROR_META_KEY],
    )
    expect(typed?._tag).toBe("ToolNotFound")
    expect((typed as unknown as { suggestions: string[] }).suggestions).toContain("demo.echo")
  })

  it("says which MCP name to use when a client sends a tool id", async () => {
    const error = (await setup.client
      .callTool({ name: "demo/echo", arguments: {} })
      .catch((e) => e)) as McpError
    expect(error.message).toMatch(/^MCP error -32602: Unknown tool "demo\/echo"; did you mean "demo\.echo"/)
  })

  it("passes progress notifications through", async () => {
    const seen: Progress[] = []
    const result = await setup.client.callTool(
      { name: "demo.slow", arguments: { steps: 3, delayMs: 10 } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    )
    expect(result.structuredContent).toEqual({ steps: 3 })
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3])
    expect(seen[2]).toMatchObject({ total: 3, message: "step 3" })
  })

  it("passes log messages through at the client's level", async () => {
    const logs: unknown[] = []
    setup.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params)
    })
    await setup.client.setLoggingLevel("info")
    await setup.client.callTool({ name: "demo.log", arguments: { message: "hello" } })
    await expect.poll(() => logs.length).toBeGreaterThan(0)
    expect(logs).toEqual([{ level: "info", logger: "demo", data: { message: "hello" } }])
  })

  it("aborts the handler when the client cancels", async () => {
    const controller = new AbortController()
    const started = Date.now()
    const call = setup.client.callTool(
      { name: "demo.slow", arguments: { steps: 50, delayMs: 100 } },
      CallToolResultSchema,
      { signal: controller.signal, onprogress: () => controller.abort(new Error("user cancelled")) },
    )
    await expect(call).rejects.toThrow(/user cancelled/)
    expect(Date.now() - started).toBeLessThan(3000)
    await expect.poll(() => setup.abortedCount()).toBeGreaterThan(0)
    // The server stays usable.
    const after = await setup.client.callTool({ name: "demo.echo", arguments: { text: "still here" } })
    expect(after.content).toEqual([{ type: "text", text: "still here" }])
  })

  it("sends notifications/tools/list_changed when the tools change", async () => {
    let changed = 0
    setup.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    await setup.grow()
    await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThan(0)
    const { tools } = await listAll(setup.client)
    expect(tools.map((t) => t.name)).toContain("demo.grown")
  })

  it("answers ping", async () => {
    await expect(setup.client.ping()).resolves.toEqual({})
  })
})

const rawPost = (
  url: string,
  host: string,
  extraHeaders: Record<string, string> = {},
  delayBodyMs = 0,
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "x", version: "0" },
      },
    })
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          Host: host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...extraHeaders,
        },
      },
      (res) => {
        let text = ""
        res.on("data", (c) => (text += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on("error", reject)
    if (delayBodyMs === 0) req.end(body)
    else {
      req.flushHeaders()
      setTimeout(() => req.end(body), delayBodyMs)
    }
  })

describe("serveHttp protections", () => {
  let handle: McpHttpServerHandle
  beforeAll(async () => {
    handle = await serveHttp(demoService())
  })
  afterAll(async () => {
    await handle?.close()
  })

  it("rejects a request whose Host is not localhost (DNS rebinding) and accepts a local one", async () => {
    const evil = await rawPost(handle.url, "evil.example")
    expect(evil.status).toBe(403)
    expect(evil.body).toContain("evil.example")
    const local = await rawPost(handle.url, `localhost:${handle.port}`)
    expect(local.status).toBe(200)
  })

  it("rejects a foreign Origin", async () => {
    const res = await rawPost(handle.url, `127.0.0.1:${handle.port}`, { Origin: "https://evil.example" })
    expect(res.status).toBe(403)
  })

  it("checks Origin and another Host after a Host was accepted (the accepted Host is remembered alone)", async () => {
    const host = `127.0.0.1:${handle.port}`
    // Accepted once without Origin, the same Host is still checked with an Origin, and other Hosts are checked.
    expect((await rawPost(handle.url, host)).status).toBe(200)
    expect((await rawPost(handle.url, host, { Origin: "https://evil.example" })).status).toBe(403)
    expect((await rawPost(handle.url, host, { Origin: "null" })).status).toBe(403)
    expect((await rawPost(handle.url, "evil.example")).status).toBe(403)
    expect((await rawPost(handle.url, host)).status).toBe(200)
    expect((await rawPost(handle.url, "evil.example")).status).toBe(403)
    expect((await rawPost(handle.url, host, { Origin: `http://${host}` })).status).toBe(200)
  })

  it("answers 404 for an unknown session and another path", async () => {
    expect((await rawPost(handle.url, `127.0.0.1:${handle.port}`, { "mcp-session-id": "nope" })).status).toBe(
      404,
    )
    expect((await rawPost(handle.url.replace(/\/mcp$/, "/other"), `127.0.0.1:${handle.port}`)).status).toBe(
      404,
    )
  })
})

describe("serveHttp on a wildcard address", () => {
  let handle: McpHttpServerHandle
  let local: string
  beforeAll(async () => {
    handle = await serveHttp(demoService(), { host: "0.0.0.0", allowUnauthenticated: true })
    local = `http://127.0.0.1:${handle.port}/mcp`
  })
  afterAll(async () => {
    await handle?.close()
  })

  it("still rejects a foreign Host or Origin (DNS rebinding) and accepts a loopback one", async () => {
    const evilHost = await rawPost(local, "evil.example")
    expect(evilHost.status).toBe(403)
    const evilHostPort = await rawPost(local, `evil.example:${handle.port}`)
    expect(evilHostPort.status).toBe(403)
    const evilOrigin = await rawPost(local, `127.0.0.1:${handle.port}`, { Origin: "http://evil.example" })
    expect(evilOrigin.status).toBe(403)
    expect((await rawPost(local, `127.0.0.1:${handle.port}`)).status).toBe(200)
    expect((await rawPost(local, `localhost:${handle.port}`)).status).toBe(200)
    const sameOrigin = await rawPost(local, `127.0.0.1:${handle.port}`, {
      Origin: `http://127.0.0.1:${handle.port}`,
    })
    expect(sameOrigin.status).toBe(200)
  })

  it("recognises IPv4-mapped IPv6 loopback addresses", () => {
    expect(isLoopbackHost("::ffff:127.0.0.1")).toBe(true)
    expect(isLoopbackHost("[::ffff:127.0.0.1]")).toBe(true)
    expect(isLoopbackHost("::ffff:10.0.0.1")).toBe(false)
  })
})

describe("serveHttp session bookkeeping", () => {
  it("counts initialize requests in progress against maxSessions", async () => {
    const handle = await serveHttp(demoService(), { maxSessions: 2 })
    try {
      const answers = await Promise.all(
        // Bodies arrive late, so every request is being handled at once.
        Array.from({ length: 6 }, () => rawPost(handle.url, `127.0.0.1:${handle.port}`, {}, 150)),
      )
      const ok = answers.filter((a) => a.status === 200).length
      expect(ok).toBeLessThanOrEqual(2)
      expect(ok).toBeGreaterThan(0)
      expect(answers.filter((a) => a.status === 503).length).toBe(6 - ok)
      expect(handle.connections()).toBeLessThanOrEqual(2)
    } finally {
      await handle.close()
    }
  })

  it("closes the server of a new session when handling its request throws (sdk transport)", async () => {
    const handle = await serveHttp(demoService(), { transport: "sdk" })
    const failing = vi
      .spyOn(WebStandardStreamableHTTPServerTransport.prototype, "handleRequest")
      .mockRejectedValueOnce(new Error("boom"))
    const closed = vi.spyOn(Server.prototype, "close")
    try {
      const res = await rawPost(handle.url, `127.0.0.1:${handle.port}`)
      expect(res.status).toBe(500)
      expect(closed).toHaveBeenCalledTimes(1)
      expect(handle.connections()).toBe(0)
    } finally {
      failing.mockRestore()
      closed.mockRestore()
      await handle.close()
    }
  })

  it("drops idle sessions of a replica from memory and rebuilds one from its signed id on its next request (node transport)", async () => {
    // With a bus another replica may be serving the session, so idleness here only drops the state
    // (in one process an idle session is over; see sessionIds.test.ts).
    const handle = await serveHttp(demoService(), { sessionIdleMs: 50, bus: memoryReplicaBus() })
    try {
      const client = new Client({ name: "idle", version: "0" })
      const transport = new StreamableHTTPClientTransport(new URL(handle.url))
      await client.connect(transport)
      expect(handle.connections()).toBe(1)
      const deadline = Date.now() + 3000
      while (handle.connections() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
      expect(handle.connections()).toBe(0)
      const result = await client.callTool({ name: "demo.echo", arguments: { text: "back" } })
      expect(result.content).toEqual([{ type: "text", text: "back" }])
      expect(handle.connections()).toBe(1)
      await client.close()
    } finally {
      await handle.close()
    }
  })

  it("keeps no session when connecting its server throws (node transport)", async () => {
    const handle = await serveHttp(demoService(), { transport: "node" })
    const failing = vi.spyOn(Server.prototype, "connect").mockRejectedValueOnce(new Error("boom"))
    try {
      const res = await rawPost(handle.url, `127.0.0.1:${handle.port}`)
      expect(res.status).toBe(500)
      expect(handle.connections()).toBe(0)
      expect((await rawPost(handle.url, `127.0.0.1:${handle.port}`)).status).toBe(200)
      expect(handle.connections()).toBe(1)
    } finally {
      failing.mockRestore()
      await handle.close()
    }
  })
})

describe("createMcpServer", () => {
  it("unsubscribes its watch when the server closes", async () => {
    const unwatch = vi.fn()
    const server = createMcpServer(demoService(), { watch: () => unwatch })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: "t", version: "0" })
    await client.connect(clientSide)
    expect(unwatch).not.toHaveBeenCalled()
    await client.close()
    await server.close()
    expect(unwatch).toHaveBeenCalledTimes(1)
  })
})

describe("serveHttp answers", () => {
  const post = (
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; type: string; session?: string; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
        },
        (res) => {
          let text = ""
          res.on("data", (c) => (text += c))
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers["content-type"]),
              ...(res.headers["mcp-session-id"] ? { session: String(res.headers["mcp-session-id"]) } : {}),
              body: text,
            }),
          )
        },
      )
      req.on("error", reject)
      req.end(JSON.stringify(body))
    })

  it("sends a call's lone answer as plain JSON, and a call with notifications as an SSE stream", async () => {
    const handle = await serveHttp(demoService())
    try {
      const init = await post(handle.url, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "x", version: "0" },
        },
      })
      const headers = { "mcp-session-id": init.session!, "mcp-protocol-version": LATEST_PROTOCOL_VERSION }
      expect(
        (await post(handle.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status,
      ).toBe(202)
      const plain = await post(
        handle.url,
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "demo.echo", arguments: { text: "hi" } },
        },
        headers,
      )
      expect(plain.status).toBe(200)
      expect(plain.type).toBe("application/json")
      expect(JSON.parse(plain.body)).toMatchObject({
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ text: "hi" }] },
      })
      const streamed = await post(
        handle.url,
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "demo.slow", arguments: { steps: 2, delayMs: 5 }, _meta: { progressToken: "p" } },
        },
        headers,
      )
      expect(streamed.type).toBe("text/event-stream")
      const events = streamed.body
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)))
      expect(events.filter((e) => e.method === "notifications/progress")).toHaveLength(2)
      expect(events.at(-1)).toMatchObject({ id: 3, result: { structuredContent: { steps: 2 } } })
    } finally {
      await handle.close()
    }
  })
})
