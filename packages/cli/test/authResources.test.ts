/**
 * The catalog's per-caller visibility holds for completions and subscriptions too: two MCP SDK servers
 * behind MCP backends, merged by `resourceCatalog` with a `visible` predicate that hides backend `b` from
 * every caller but `trusted`, served by `serveHttp`; real SDK clients (the caller named by a header).
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { makeCursorCodec, resourceProviderOf } from "@toolplane/foundation"
import { type McpBackend, type McpHttpServerHandle, mcpBackend, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

interface Upstream {
  readonly url: string
  readonly subscribed: Set<string>
  /** Completion requests the server answered. */
  readonly completions: string[]
  close(): Promise<void>
}

const startUpstream = async (label: string): Promise<Upstream> => {
  const subscribed = new Set<string>()
  const completions: string[] = []
  const build = () => {
    const server = new McpServer(
      { name: `upstream-${label}`, version: "1.0.0" },
      { capabilities: { resources: { subscribe: true } } },
    )
    server.registerResource("shared", "mem://shared", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, text: `${label}:${uri.href}` }],
    }))
    server.registerResource(
      "doc",
      new ResourceTemplate("mem://{name}/doc", {
        list: undefined,
        complete: {
          name: () => {
            completions.push(label)
            return [`${label}-private-name`]
          },
        },
      }),
      {},
      async (uri) => ({ contents: [{ uri: uri.href, text: `${label} doc` }] }),
    )
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscribed.add(request.params.uri)
      return {}
    })
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      subscribed.delete(request.params.uri)
      return {}
    })
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
    completions,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

describe("completions and subscriptions respect the caller's visibility", () => {
  let a: Upstream
  let b: Upstream
  let backends: McpBackend[]
  let server: McpHttpServerHandle
  const clients: Client[] = []

  const connectAs = async (caller: string) => {
    const client = new Client({ name: caller, version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { "x-caller": caller } },
      }),
    )
    clients.push(client)
    return client
  }

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
    const catalog = resourceCatalog(
      backends.map((backend) => ({ name: backend.name, provider: resourceProviderOf(backend)! })),
      {
        codec: makeCursorCodec({ keys: [{ kid: "t", secret: "0123456789abcdef0123456789abcdef" }] }),
        visible: (item, ctx) => item.source !== "b" || ctx.callerId === "trusted",
      },
    )
    server = await serveHttp(runner, {
      catalog,
      context: (info) => {
        const caller = info.headers?.["x-caller"]
        return typeof caller === "string" ? { callerId: caller } : {}
      },
    })
  }, 30_000)

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {})
    await server?.close()
    for (const backend of backends ?? []) await backend.close()
    await a?.close()
    await b?.close()
  })

  it("completes a hidden backend's qualified template for nobody but those who see it", async () => {
    const guest = await connectAs("guest")
    const ref = {
      type: "ref/resource" as const,
      uri: `toolplane://b/${encodeURIComponent("mem://{name}/doc")}`,
    }
    await expect(guest.complete({ ref, argument: { name: "name", value: "" } })).rejects.toThrow(
      /Unknown resource|not found/i,
    )
    expect(b.completions).toEqual([])
    // The unqualified template is a's (the only one the guest sees).
    const own = await guest.complete({
      ref: { type: "ref/resource", uri: "mem://{name}/doc" },
      argument: { name: "name", value: "" },
    })
    expect(own.completion.values).toEqual(["a-private-name"])
    const trusted = await connectAs("trusted")
    const theirs = await trusted.complete({ ref, argument: { name: "name", value: "" } })
    expect(theirs.completion.values).toEqual(["b-private-name"])
  })

  it("refuses a subscription to a hidden backend's URI even when someone else subscribed to it", async () => {
    const uri = `toolplane://b/${encodeURIComponent("mem://shared")}`
    const guest = await connectAs("guest")
    await expect(guest.subscribeResource({ uri })).rejects.toThrow(/Unknown resource|not found/i)
    const trusted = await connectAs("trusted")
    await trusted.subscribeResource({ uri })
    expect([...b.subscribed]).toEqual(["mem://shared"])
    await expect(guest.subscribeResource({ uri })).rejects.toThrow(/Unknown resource|not found/i)
    // The guest's own (visible) URI still subscribes.
    await guest.subscribeResource({ uri: `toolplane://a/${encodeURIComponent("mem://shared")}` })
    expect([...a.subscribed]).toEqual(["mem://shared"])
  })
})
