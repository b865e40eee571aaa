import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { makeContext } from "@toolplane/foundation"
import Provider from "oidc-provider"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import {
  authorizationCodeLogin,
  discoverOAuth,
  EncryptedTokenStore,
  mcpBackend,
  oauthUpstreamAuth,
  parseTokenKey,
} from "../src/index.js"

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  )
const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve()
    server.closeAllConnections()
    server.close(() => resolve())
  })
const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    req.on("data", (c: Buffer) => {
      text += c.toString("utf8")
    })
    req.on("end", () => resolve(text))
  })

/** A protected MCP server: bearer tokens checked by introspection at `issuer`, RFC 9728 metadata served. */
const protectedUpstream = async (issuer: () => string) => {
  const seen: (string | undefined)[] = []
  let base = ""
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    const resource = `${base}/mcp`
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ resource, authorization_servers: [issuer()], scopes_supported: ["tools"] }))
      return
    }
    if (url.pathname !== "/mcp") return void res.writeHead(404).end()
    const authorization = req.headers.authorization
    seen.push(authorization)
    const token = /^Bearer (.+)$/.exec(authorization ?? "")?.[1]
    let active = false
    if (token !== undefined) {
      const answer = await fetch(`${issuer()}/token/introspection`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: "rs", client_secret: "rs-secret" }),
      }).then((r) => r.json() as Promise<{ active: boolean; aud?: string | string[] }>)
      active = answer.active && [answer.aud].flat().includes(resource)
    }
    if (!active) {
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      })
      res.end()
      return
    }
    if (req.method !== "POST") return void res.writeHead(405).end()
    const mcp = new McpServer({ name: "protected", version: "1.0.0" })
    mcp.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text: `echo: ${text}` }],
    }))
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await mcp.connect(transport)
    await transport.handleRequest(req, res, JSON.parse(await readBody(req)))
  })
  base = await listen(server)
  return { server, url: `${base}/mcp`, seen }
}

describe("OAuth to a protected upstream MCP server (oidc-provider)", () => {
  let asServer: Server
  let issuer = ""
  let upstream: Awaited<ReturnType<typeof protectedUpstream>>
  let provider: Provider
  let dir: string
  let store: EncryptedTokenStore
  let redirectPort = 0

  beforeAll(async () => {
    asServer = createServer()
    issuer = await listen(asServer)
    upstream = await protectedUpstream(() => issuer)
    const probe = createServer()
    redirectPort = Number(new URL(await listen(probe)).port)
    await close(probe)
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: "m2m",
          client_secret: "m2m-secret",
          grant_types: ["client_credentials"],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: "client_secret_post",
          scope: "tools",
        },
        {
          client_id: "gateway",
          application_type: "native",
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          redirect_uris: [`http://127.0.0.1:${redirectPort}/callback`],
          scope: "tools",
        },
        {
          client_id: "rs",
          client_secret: "rs-secret",
          grant_types: [],
          redirect_uris: [],
          response_types: [],
        },
      ],
      scopes: ["openid", "offline_access", "tools"],
      pkce: { required: () => true },
      issueRefreshToken: async () => true,
      features: {
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => upstream.url,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({ scope: "tools", accessTokenFormat: "opaque", accessTokenTTL: 2 }),
        },
      },
    })
    asServer.on("request", provider.callback())
    dir = await mkdtemp(join(tmpdir(), "toolplane-oauth-"))
    store = new EncryptedTokenStore(
      join(dir, "tokens.json"),
      parseTokenKey(Buffer.alloc(32, 7).toString("base64"), "key"),
    )
  })
  afterAll(async () => {
    await close(upstream?.server)
    await close(asServer)
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("discovers the authorization server from the upstream's 401", async () => {
    const res = await fetch(upstream.url, { method: "POST", body: "{}" })
    expect(res.status).toBe(401)
    const found = await discoverOAuth(upstream.url, { challenge: res.headers.get("www-authenticate")! })
    expect(found.authorizationServer.issuer).toBe(issuer)
    expect(found.authorizationServer.token_endpoint).toBe(`${issuer}/token`)
    expect(found.resource).toBe(upstream.url)
    await expect(discoverOAuth(upstream.url, { issuer: "http://127.0.0.1:9/other" })).rejects.toThrow(
      /not the configured issuer/,
    )
  })

  it("lists and calls through mcpBackend with the client credentials grant", async () => {
    const auth = oauthUpstreamAuth({
      backend: "m2m",
      resource: upstream.url,
      grant: "client_credentials",
      clientId: "m2m",
      clientSecret: "m2m-secret",
      scopes: ["tools"],
    })
    const backend = mcpBackend({ name: "m2m", http: { url: upstream.url, auth } }, { reconnect: false })
    try {
      const tools = await backend.toolSchemas()
      expect(tools.map((t) => t.id)).toEqual(["m2m/echo"])
      const result = await backend.execute({ toolId: "m2m/echo", arguments: { text: "hi" } }, makeContext())
      expect(result.content).toEqual([{ type: "text", text: "echo: hi" }])
      expect(upstream.seen.at(-1)).toMatch(/^Bearer /)
    } finally {
      await backend.close()
    }
  })
})
