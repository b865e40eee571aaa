import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  authorizationCodeLogin,
  discoverOAuth,
  EncryptedTokenStore,
  mcpBackend,
  oauthUpstreamAuth,
  parseTokenKey,
} from "../src/index.js"
import {
  close,
  consentHeadlessly,
  listen,
  protectedUpstream,
  readBody,
  startOAuthServers,
} from "./fixtures/oauthServers.js"

describe("OAuth to a protected upstream MCP server (oidc-provider)", () => {
  let servers: Awaited<ReturnType<typeof startOAuthServers>>
  let issuer = ""
  let upstream: Awaited<ReturnType<typeof protectedUpstream>>
  let dir: string
  let store: EncryptedTokenStore
  let redirectPort = 0

  beforeAll(async () => {
    servers = await startOAuthServers()
    ;({ issuer, upstream, redirectPort } = servers)
    dir = await mkdtemp(join(tmpdir(), "toolplane-oauth-"))
    store = new EncryptedTokenStore(
      join(dir, "tokens.json"),
      parseTokenKey(Buffer.alloc(32, 7).toString("base64"), "key"),
    )
  })
  afterAll(async () => {
    await servers?.close()
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

  it("keeps to the first issuer when the upstream later names another (no secret sent there)", async () => {
    let named = issuer
    const moving = await protectedUpstream(() => named)
    const otherSeen: string[] = []
    const otherIssuer = createServer((req, res) => {
      readBody(req).then((body) => {
        otherSeen.push(`${req.url} ${req.headers.authorization ?? ""} ${body}`)
        // The upstream now introspects here: every token is inactive.
        if (req.url === "/token/introspection")
          res.writeHead(200, { "content-type": "application/json" }).end('{"active":false}')
        else if (req.url === "/.well-known/oauth-authorization-server")
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ issuer: otherBase, token_endpoint: `${otherBase}/token` }))
        else res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_client"}')
      })
    })
    const otherBase = await listen(otherIssuer)
    const auth = oauthUpstreamAuth({
      backend: "moving",
      resource: moving.url,
      grant: "client_credentials",
      clientId: "m2m",
      clientSecret: "m2m-secret",
    })
    const backend = mcpBackend(
      { name: "moving", http: { url: moving.url, auth, transport: "fetch" } },
      { reconnect: false },
    )
    try {
      await backend.connect()
      named = otherBase
      // The held token no longer passes the upstream's check (it now trusts the other issuer): 401.
      await expect(
        backend.execute({ toolId: "moving/echo", arguments: { text: "x" } }, makeContext()),
      ).rejects.toMatchObject({
        _tag: "BackendUnavailable",
        message: expect.stringMatching(/not the configured issuer/),
      })
      expect(otherSeen.join("\n")).not.toContain("m2m-secret")
      expect(otherSeen.filter((s) => s.startsWith("/token "))).toEqual([])
      expect(otherSeen.some((s) => s.startsWith("/token/introspection"))).toBe(true)
    } finally {
      await backend.close()
      await close(moving.server)
      await close(otherIssuer)
    }
  })

  it("discovers from the 401 when the metadata is not at the well-known URL", async () => {
    const hidden = await protectedUpstream(() => issuer, "/meta/prm")
    const auth = oauthUpstreamAuth({
      backend: "hidden",
      resource: hidden.url,
      grant: "client_credentials",
      clientId: "m2m",
      clientSecret: "m2m-secret",
    })
    const backend = mcpBackend({ name: "hidden", http: { url: hidden.url, auth } }, { reconnect: false })
    try {
      const result = await backend.execute({ toolId: "hidden/echo", arguments: { text: "h" } }, makeContext())
      expect(result.content).toEqual([{ type: "text", text: "echo: h" }])
      expect(hidden.seen[0]).toBeUndefined()
      expect(hidden.seen.at(-1)).toMatch(/^Bearer /)
    } finally {
      await backend.close()
      await close(hidden.server)
    }
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

  it("registers dynamically when no client_id is configured and the server offers registration", async () => {
    const own = new EncryptedTokenStore(join(dir, "dcr.json"), parseTokenKey("ab".repeat(32), "key"))
    const tokens = await authorizationCodeLogin({
      backend: "dcr",
      resource: upstream.url,
      store: own,
      scopes: ["tools"],
      timeoutMs: 10_000,
      onAuthorizationUrl: (url) => {
        expect(url.searchParams.get("client_id")).not.toBe("gateway")
        const redirect = url.searchParams.get("redirect_uri")!
        void consentHeadlessly(url, redirect).then((callback) => fetch(callback))
      },
    })
    expect(tokens.clientId).not.toBe("gateway")
    expect(tokens.clientId.length).toBeGreaterThan(0)
    await expect(own.get(issuer, "dcr")).resolves.toMatchObject({ clientId: tokens.clientId })
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
      const pinnedBackend = mcpBackend(
        { name: "crm", http: { url: other.url, auth: pinned } },
        { reconnect: false },
      )
      await expect(pinnedBackend.connect()).rejects.toThrow(/not the configured issuer/)
      await pinnedBackend.close()
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
    const connected = mcpBackend(
      {
        name: "crm",
        http: {
          url: upstream.url,
          auth: oauthUpstreamAuth({
            backend: "crm",
            resource: upstream.url,
            grant: "authorization_code",
            store,
          }),
        },
      },
      { reconnect: false },
    )
    await connected.connect()
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
      // A backend connected before the revocation reports its calls the same way.
      await expect(
        connected.execute({ toolId: "crm/echo", arguments: { text: "y" } }, makeContext()),
      ).rejects.toMatchObject({
        _tag: "BackendUnavailable",
        message: expect.stringMatching(/toolplane auth login crm/),
      })
    } finally {
      await backend.close()
      await connected.close()
    }
  })
})
