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

/**
 * Completes oidc-provider's development login and consent forms like a browser would (cookies, redirects,
 * form posts) and returns the redirect to the client's callback, without following it.
 */
const consentHeadlessly = async (authorizationUrl: URL, redirectPrefix: string): Promise<URL> => {
  const jar = new Map<string, string>()
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const at = pair!.indexOf("=")
      jar.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
  }
  let next: { url: URL; form?: URLSearchParams } = { url: authorizationUrl }
  for (let step = 0; step < 12; step++) {
    const res = await fetch(next.url, {
      redirect: "manual",
      method: next.form ? "POST" : "GET",
      headers: {
        cookie: cookie(),
        ...(next.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(next.form ? { body: next.form } : {}),
    })
    keep(res)
    const location = res.headers.get("location")
    if (location !== null) {
      const target = new URL(location, next.url)
      if (target.href.startsWith(redirectPrefix)) return target
      next = { url: target }
      continue
    }
    const html = await res.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    if (action === undefined) throw new Error(`no form at ${next.url.href} (HTTP ${res.status})`)
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1] ?? "consent"
    const form = new URLSearchParams({ prompt })
    if (prompt === "login") form.set("login", "alice"), form.set("password", "pw")
    next = { url: new URL(action.replace(/&amp;/g, "&"), next.url), form }
  }
  throw new Error("consent did not reach the redirect")
}

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

  const login = (tamper?: (callback: URL) => void) =>
    authorizationCodeLogin({
      backend: "crm",
      resource: upstream.url,
      store,
      clientId: "gateway",
      scopes: ["tools"],
      port: redirectPort,
      timeoutMs: 10_000,
      onAuthorizationUrl: (url) => {
        void consentHeadlessly(url, `http://127.0.0.1:${redirectPort}/callback`).then((callback) => {
          tamper?.(callback)
          return fetch(callback)
        })
      },
    })

  it("refuses an authorization response whose iss is not the issuer", async () => {
    await expect(
      login((callback) => callback.searchParams.set("iss", "http://127.0.0.1:9/evil")),
    ).rejects.toThrow(/authorization response refused/)
    await expect(store.get(issuer, "crm")).resolves.toBeUndefined()
  })

  it("logs in with the authorization code and PKCE, stores tokens encrypted, refreshes after expiry", async () => {
    const tokens = await login()
    expect(tokens.issuer).toBe(issuer)
    expect(tokens.refreshToken).toBeDefined()
    const file = await readFile(store.path, "utf8")
    expect(file).not.toContain(tokens.accessToken)
    expect(file).not.toContain(tokens.refreshToken!)
    expect((await stat(store.path)).mode & 0o777).toBe(0o600)

    const auth = oauthUpstreamAuth({
      backend: "crm",
      resource: upstream.url,
      grant: "authorization_code",
      clientId: "gateway",
      store,
      refreshSkewMs: 500,
    })
    const backend = mcpBackend({ name: "crm", http: { url: upstream.url, auth } }, { reconnect: false })
    try {
      const call = () => backend.execute({ toolId: "crm/echo", arguments: { text: "x" } }, makeContext())
      await expect(call()).resolves.toMatchObject({ content: [{ type: "text", text: "echo: x" }] })
      expect(upstream.seen.at(-1)).toBe(`Bearer ${tokens.accessToken}`)
      await new Promise((r) => setTimeout(r, 1600))
      await expect(call()).resolves.toMatchObject({ content: [{ type: "text", text: "echo: x" }] })
      const refreshed = (await store.get(issuer, "crm"))!
      expect(refreshed.accessToken).not.toBe(tokens.accessToken)
      expect(upstream.seen.at(-1)).toBe(`Bearer ${refreshed.accessToken}`)
      expect(await readFile(store.path, "utf8")).not.toContain(refreshed.accessToken)
    } finally {
      await backend.close()
    }
  })

  it("never sends a token of issuer A to a resource of issuer B", async () => {
    const a = (await store.get(issuer, "crm"))!
    const otherIssuer = createServer((req, res) => {
      otherSeen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`)
      const base = `http://127.0.0.1:${(otherIssuer.address() as AddressInfo).port}`
      if (req.url === "/.well-known/oauth-authorization-server") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            issuer: base,
            token_endpoint: `${base}/token`,
            authorization_endpoint: `${base}/auth`,
          }),
        )
      } else {
        readBody(req).then((body) => {
          otherSeen.push(body)
          res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_grant"}')
        })
      }
    })
    const otherSeen: string[] = []
    const otherBase = await listen(otherIssuer)
    const other = await protectedUpstream(() => otherBase)
    try {
      // The same store and backend name, but the resource names issuer B: no token of A is found or sent.
      const auth = oauthUpstreamAuth({
        backend: "crm",
        resource: other.url,
        grant: "authorization_code",
        store,
      })
      const backend = mcpBackend({ name: "crm", http: { url: other.url, auth } }, { reconnect: false })
      await expect(backend.connect()).rejects.toThrow(/toolplane auth login crm/)
      await backend.close()
      // A pinned issuer that the resource does not name is refused before any token moves.
      const pinned = oauthUpstreamAuth({
        backend: "crm",
        resource: other.url,
        grant: "authorization_code",
        store,
        issuer,
      })
      await expect(pinned.authorization()).rejects.toThrow(/not the configured issuer/)
      const everything = [...other.seen, ...otherSeen].join("\n")
      expect(everything).not.toContain(a.accessToken)
      expect(everything).not.toContain(a.refreshToken!)
    } finally {
      await close(other.server)
      await close(otherIssuer)
    }
  })

  it("reports a revoked token as an unavailable backend with the login command", async () => {
    const current = (await store.get(issuer, "crm"))!
    for (const token of [current.refreshToken!, current.accessToken]) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: "gateway" }),
      })
      expect(res.status).toBe(200)
    }
    const auth = oauthUpstreamAuth({
      backend: "crm",
      resource: upstream.url,
      grant: "authorization_code",
      clientId: "gateway",
      store,
      refreshSkewMs: 0,
    })
    const backend = mcpBackend({ name: "crm", http: { url: upstream.url, auth } }, { reconnect: false })
    try {
      const error = await backend.connect().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toMatchObject({ _tag: "BackendUnavailable" })
      expect(String((error as Error).message)).toMatch(/run `toolplane auth login crm`/)
      expect(String((error as Error).message)).not.toContain(current.accessToken)
    } finally {
      await backend.close()
    }
  })
})
