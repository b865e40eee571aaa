/**
 * A session belongs to the token that opened it, not only to its client: two tokens of one client that
 * hold different scopes (or two users of one OAuth client) must not use each other's sessions. Token B
 * takes over the GET stream of a session token A opened and subscribed on, and would receive the updates
 * of a resource that B's scopes do not show; and one user's JWT must not open another user's session of
 * the same OAuth client. Real SDK servers and `serveHttp` over loopback.
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { SubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { makeCursorCodec, resourceProviderOf } from "@toolplane/foundation"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  callerScopes,
  jwtAuth,
  type McpBackend,
  type McpHttpServerHandle,
  mcpBackend,
  serveHttp,
  staticTokenAuth,
} from "../src/index.js"

const WIDE = "wide-token-0123456789abcdef"
const NARROW = "narrow-token-0123456789abcdef"

describe.each(["node", "raw", "sdk"] as const)(
  "a session opened by one token, used by another (%s edge)",
  (transport) => {
    let upstream: { url: string; notify: (uri: string) => Promise<void>; close(): Promise<void> }
    let backend: McpBackend
    let server: McpHttpServerHandle

    beforeAll(async () => {
      const servers: McpServer[] = []
      const sessions = new Map<string, StreamableHTTPServerTransport>()
      const http: HttpServer = createServer(async (req, res) => {
        const id = req.headers["mcp-session-id"]
        const existing = typeof id === "string" ? sessions.get(id) : undefined
        if (existing) return existing.handleRequest(req, res)
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            sessions.set(sid, t)
          },
        })
        const s = new McpServer(
          { name: "secret", version: "1.0.0" },
          { capabilities: { resources: { subscribe: true } } },
        )
        s.registerResource("plan", "mem://plan", {}, async (uri) => ({
          contents: [{ uri: uri.href, text: "plan" }],
        }))
        s.server.setRequestHandler(SubscribeRequestSchema, async () => ({}))
        servers.push(s)
        await s.connect(t)
        await t.handleRequest(req, res)
      })
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
      upstream = {
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
        notify: async (uri) => {
          for (const s of servers) await s.server.sendResourceUpdated({ uri }).catch(() => {})
        },
        close: async () => {
          for (const t of sessions.values()) await t.close().catch(() => {})
          http.closeAllConnections()
          await new Promise<void>((resolve) => http.close(() => resolve()))
        },
      }
      backend = mcpBackend({ name: "secret", http: { url: upstream.url } })
      await backend.connect()
      const runner = createRunner({ backends: [backend] })
      await runner.ready()
      const catalog = resourceCatalog([{ name: "secret", provider: resourceProviderOf(backend)! }], {
        codec: makeCursorCodec({ keys: [{ kid: "t", secret: "0123456789abcdef0123456789abcdef" }] }),
        visible: (item, ctx) => item.source !== "secret" || (callerScopes(ctx) ?? []).includes("admin"),
      })
      server = await serveHttp(runner, {
        transport,
        catalog,
        auth: staticTokenAuth([
          { token: WIDE, clientId: "app", scopes: ["admin"] },
          { token: NARROW, clientId: "app", scopes: ["pub"] },
        ]),
      })
    }, 30_000)

    afterAll(async () => {
      await server?.close()
      await backend?.close()
      await upstream?.close()
    })

    const post = (token: string, body: unknown, sessionId?: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
        },
        body: JSON.stringify(body),
      })

    it("refuses token B on token A's session: no POST, no GET stream, no DELETE", async () => {
      const init = await post(WIDE, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "a", version: "1" } },
      })
      expect(init.status).toBe(200)
      const sessionId = init.headers.get("mcp-session-id")!
      await init.text()
      await (await post(WIDE, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionId)).text()
      const uri = `toolplane://secret/${encodeURIComponent("mem://plan")}`
      const sub = await post(
        WIDE,
        { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri } },
        sessionId,
      )
      expect(await sub.text()).toContain('"result"')

      // The narrow token cannot see the resource itself.
      const own = await post(
        NARROW,
        { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri } },
        sessionId,
      )
      const ownText = await own.text()
      expect(ownText).not.toContain('"plan"')

      // Token B on A's session: the GET stream (where A's resource updates go).
      const controller = new AbortController()
      const stream = await fetch(server.url, {
        headers: {
          authorization: `Bearer ${NARROW}`,
          accept: "text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
        },
        signal: controller.signal,
      })
      let received = ""
      if (stream.status === 200 && stream.body) {
        const reader = stream.body.getReader()
        const decoder = new TextDecoder()
        await upstream.notify("mem://plan")
        const deadline = Date.now() + 1500
        while (Date.now() < deadline && !received.includes("resources/updated")) {
          const chunk = await Promise.race([
            reader.read(),
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200)),
          ])
          if (chunk && !chunk.done) received += decoder.decode(chunk.value)
        }
      }
      controller.abort()
      expect(received).not.toContain("resources/updated")
      expect(stream.status).toBe(404)

      const ping = await post(NARROW, { jsonrpc: "2.0", id: 4, method: "ping" }, sessionId)
      expect(ping.status).toBe(404)
      await ping.text()
      const del = await fetch(server.url, {
        method: "DELETE",
        headers: {
          authorization: `Bearer ${NARROW}`,
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
        },
      })
      expect(del.status).toBe(404)
      // A's session still works.
      const again = await post(WIDE, { jsonrpc: "2.0", id: 5, method: "ping" }, sessionId)
      expect(again.status).toBe(200)
      await again.text()
    })
  },
)

describe("a session opened by one user of an OAuth client, used by another user of it", () => {
  let server: McpHttpServerHandle
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]

  const token = (sub: string) =>
    new SignJWT({ client_id: "shared-app", sub, scope: "mcp" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer("https://issuer.test")
      .setAudience("https://gateway.test")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey)

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256")
    privateKey = pair.privateKey
    const runner = createRunner({ backends: [] })
    await runner.ready()
    server = await serveHttp(runner, {
      auth: jwtAuth({
        jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] },
        issuer: "https://issuer.test",
        audience: "https://gateway.test",
      }),
      resourceUrl: "https://gateway.test",
    })
  })

  afterAll(async () => {
    await server?.close()
  })

  it("binds the session to the token's subject, not only to the client id", async () => {
    const send = async (bearer: string, body: unknown, sessionId?: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
        },
        body: JSON.stringify(body),
      })
    const alice = await token("alice")
    const init = await send(alice, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "a", version: "1" } },
    })
    expect(init.status).toBe(200)
    const sessionId = init.headers.get("mcp-session-id")!
    await init.text()
    const own = await send(await token("alice"), { jsonrpc: "2.0", id: 2, method: "ping" }, sessionId)
    expect(own.status).toBe(200)
    await own.text()
    const other = await send(await token("mallory"), { jsonrpc: "2.0", id: 3, method: "ping" }, sessionId)
    expect(other.status).toBe(404)
    await other.text()
  })
})
