/**
 * Resources and prompts of several MCP backends through one server: two plain MCP SDK servers that
 * claim the same URI and the same prompt name, fronted by MCP backends, merged by `resourceCatalog`
 * and served by `serveHttp`; real SDK clients on the other side.
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { makeCursorCodec, resourceProviderOf } from "@toolplane/foundation"
import { type McpBackend, type McpHttpServerHandle, mcpBackend, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

interface Upstream {
  readonly url: string
  /** URIs subscribed right now, as the upstream server saw it. */
  readonly subscribed: Set<string>
  /** Sends resources/updated for `uri` to every session. */
  updated(uri: string): Promise<void>
  /** Adds a resource and sends resources/list_changed. */
  addResource(uri: string): Promise<void>
  close(): Promise<void>
}

const startUpstream = async (label: string): Promise<Upstream> => {
  const servers = new Set<McpServer>()
  const extra: string[] = []
  const subscribed = new Set<string>()
  const build = () => {
    const server = new McpServer(
      { name: `upstream-${label}`, version: "1.0.0" },
      { capabilities: { resources: { subscribe: true, listChanged: true } } },
    )
    const text = (uri: URL) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `${label}:${uri.href}` }],
    })
    server.registerResource("shared", "mem://shared", { mimeType: "text/plain" }, async (uri) => text(uri))
    server.registerResource(`own-${label}`, `mem://${label}/own`, { mimeType: "text/plain" }, async (uri) =>
      text(uri),
    )
    for (const uri of extra) server.registerResource(uri, uri, {}, async (u) => text(u))
    server.registerPrompt("greet", { description: `greets from ${label}` }, async () => ({
      messages: [{ role: "user", content: { type: "text", text: `hello from ${label}` } }],
    }))
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscribed.add(request.params.uri)
      return {}
    })
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      subscribed.delete(request.params.uri)
      return {}
    })
    servers.add(server)
    return server
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"]
    const existing = typeof id === "string" ? sessions.get(id) : undefined
    if (existing) return existing.handleRequest(req, res)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport)
      },
    })
    await build().connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    subscribed,
    updated: async (uri) => {
      for (const s of servers) await s.server.sendResourceUpdated({ uri }).catch(() => {})
    },
    addResource: async (uri) => {
      extra.push(uri)
      for (const s of servers) {
        s.registerResource(uri, uri, {}, async (u) => ({ contents: [{ uri: u.href, text: label }] }))
      }
    },
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

const connectClient = async (url: string) => {
  const client = new Client({ name: "test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting")
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe("resources and prompts of several MCP backends through serveHttp", () => {
  let a: Upstream
  let b: Upstream
  let backends: McpBackend[]
  let server: McpHttpServerHandle
  let hiddenServer: McpHttpServerHandle
  const codec = makeCursorCodec({ keys: [{ kid: "t", secret: "0123456789abcdef0123456789abcdef" }] })

  beforeAll(async () => {
    a = await startUpstream("a")
    b = await startUpstream("b")
    backends = [
      mcpBackend({ name: "a", http: { url: a.url } }),
      mcpBackend({ name: "b", http: { url: b.url } }),
    ]
    for (const backend of backends) await backend.connect()
    const runner = createRunner({ backends })
    await runner.ready()
    const sources = backends.map((backend) => ({
      name: backend.name,
      provider: resourceProviderOf(backend)!,
    }))
    server = await serveHttp(runner, { catalog: resourceCatalog(sources, { codec, pageSize: 2 }) })
    hiddenServer = await serveHttp(runner, {
      catalog: resourceCatalog(sources, { codec, visible: (item) => item.source !== "b" }),
    })
  }, 30_000)

  afterAll(async () => {
    await server?.close()
    await hiddenServer?.close()
    for (const backend of backends ?? []) await backend.close()
    await a?.close()
    await b?.close()
  })

  it("advertises resources (with subscribe) and prompts, serves colliding URIs in a reversible form", async () => {
    const client = await connectClient(server.url)
    const caps = client.getServerCapabilities()
    expect(caps?.resources).toEqual({ listChanged: true, subscribe: true })
    expect(caps?.prompts).toEqual({ listChanged: true })
    // pageSize 2: the four resources come in two pages, each cursor signed by the gateway.
    const first = await client.listResources()
    expect(first.resources).toHaveLength(2)
    expect(first.nextCursor).toBeDefined()
    const second = await client.listResources({ cursor: first.nextCursor! })
    const uris = [...first.resources, ...second.resources].map((r) => r.uri).sort()
    expect(uris).toEqual([
      "mem://a/own",
      "mem://b/own",
      "toolplane://a/mem%3A%2F%2Fshared",
      "toolplane://b/mem%3A%2F%2Fshared",
    ])
    const fromB = await client.readResource({ uri: "toolplane://b/mem%3A%2F%2Fshared" })
    expect(fromB.contents[0]).toMatchObject({
      uri: "toolplane://b/mem%3A%2F%2Fshared",
      text: "b:mem://shared",
    })
    expect((await client.readResource({ uri: "mem://a/own" })).contents[0]).toMatchObject({
      text: "a:mem://a/own",
    })
    // A tampered cursor is a -32602 error, not a page.
    await expect(client.listResources({ cursor: `${first.nextCursor!.slice(0, -2)}xx` })).rejects.toThrow(
      /-32602/,
    )
    await expect(client.readResource({ uri: "mem://nowhere" })).rejects.toThrow(/Unknown resource/)
    await client.close()
  })

  it("namespaces prompt names by backend", async () => {
    const client = await connectClient(server.url)
    const names: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listPrompts(cursor ? { cursor } : {})
      names.push(...page.prompts.map((p) => p.name))
      cursor = page.nextCursor
    } while (cursor)
    expect(names.sort()).toEqual(["a.greet", "b.greet"])
    const got = await client.getPrompt({ name: "b.greet" })
    expect(got.messages[0]!.content).toEqual({ type: "text", text: "hello from b" })
    await expect(client.getPrompt({ name: "c.greet" })).rejects.toThrow(/Unknown prompt "c.greet"/)
    await client.close()
  })

  it("forwards subscriptions to the owning backend and relays updates only to subscribed sessions", async () => {
    const subscriber = await connectClient(server.url)
    const bystander = await connectClient(server.url)
    const got: string[] = []
    const other: string[] = []
    subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      got.push(n.params.uri)
    })
    bystander.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      other.push(n.params.uri)
    })
    await subscriber.subscribeResource({ uri: "toolplane://b/mem%3A%2F%2Fshared" })
    expect([...b.subscribed]).toEqual(["mem://shared"])
    expect([...a.subscribed]).toEqual([])
    await b.updated("mem://shared")
    await waitFor(() => got.length > 0)
    expect(got).toEqual(["toolplane://b/mem%3A%2F%2Fshared"])
    await subscriber.unsubscribeResource({ uri: "toolplane://b/mem%3A%2F%2Fshared" })
    expect([...b.subscribed]).toEqual([])
    expect(other).toEqual([])
    await subscriber.close()
    await bystander.close()
  })

  it("relays resources/list_changed and lists the new resource", async () => {
    const client = await connectClient(server.url)
    let changed = 0
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changed++
    })
    // A round trip first: the client opens its GET stream (where notifications go) after initializing.
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain("mem://a/new")
    await new Promise((r) => setTimeout(r, 200))
    await a.addResource("mem://a/new")
    await waitFor(() => changed > 0)
    const all: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listResources(cursor ? { cursor } : {})
      all.push(...page.resources.map((r) => r.uri))
      cursor = page.nextCursor
    } while (cursor)
    expect(all).toContain("mem://a/new")
    await client.close()
  })

  it("hides a hidden backend's resources and prompts entirely", async () => {
    const client = await connectClient(hiddenServer.url)
    const resources = (await client.listResources()).resources.map((r) => r.uri)
    expect(resources.every((uri) => !uri.includes("b"))).toBe(true)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["a.greet"])
    await expect(client.getPrompt({ name: "b.greet" })).rejects.toThrow(/Unknown prompt/)
    await expect(client.readResource({ uri: "mem://b/own" })).rejects.toThrow(/Unknown resource/)
    await client.close()
  })
})
