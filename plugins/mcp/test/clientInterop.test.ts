/**
 * What the official MCP conformance suite's client scenarios found in `mcpBackend` and its upstream
 * OAuth, each against a loopback server that behaves like the suite's scenario servers: an authorization
 * server whose dynamic registration returns a secret without `client_secret_expires_at` and whose token
 * endpoint accepts only HTTP Basic client authentication, and a 2026-07-28 server that refuses the first
 * request with UnsupportedProtocolVersion (-32022) while naming 2026-07-28 as supported.
 */
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  authorizationCodeLogin,
  EncryptedTokenStore,
  MODERN_PROTOCOL_VERSION,
  mcpBackend,
  oauthUpstreamAuth,
} from "../src/index.js"
import { close, listen, readBody } from "./fixtures/oauthServers.js"

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

/**
 * An authorization server and protected resource on one port, Basic-only at the token endpoint. Records
 * how each token request authenticated.
 */
const basicOnlyAuthorizationServer = async () => {
  const codes = new Map<string, { challenge: string; redirect: string }>()
  const tokenAuth: string[] = []
  let base = ""
  const clients = new Map([["pre-registered", "pre-secret"]])
  const state = { lifetimeSeconds: 3600 }
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp")
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] })
    // A resource whose metadata only its 401 names (no well-known document for it).
    if (url.pathname === "/hidden")
      return void res
        .writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/meta/prm"` })
        .end()
    // A resource whose metadata is only at the root well-known URL (not path-inserted), with a bare 401.
    if (url.pathname === "/rooted") return void res.writeHead(401, { "www-authenticate": "Bearer" }).end()
    if (url.pathname === "/.well-known/oauth-protected-resource")
      return json(res, 200, { resource: `${base}/rooted`, authorization_servers: [base] })
    if (url.pathname === "/meta/prm")
      return json(res, 200, { resource: `${base}/hidden`, authorization_servers: [base] })
    if (url.pathname === "/.well-known/oauth-authorization-server")
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "client_credentials", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      })
    if (url.pathname === "/register" && req.method === "POST") {
      const id = `dcr-${randomBytes(4).toString("hex")}`
      const secret = randomBytes(8).toString("hex")
      clients.set(id, secret)
      await readBody(req)
      // RFC 7591 asks for client_secret_expires_at beside a secret; servers in use leave it out.
      return json(res, 201, { client_id: id, client_secret: secret, redirect_uris: [] })
    }
    if (url.pathname === "/authorize") {
      // Consents at once, like the conformance suite's authorization server.
      const code = randomBytes(8).toString("hex")
      const redirect = url.searchParams.get("redirect_uri")!
      codes.set(code, { challenge: url.searchParams.get("code_challenge")!, redirect })
      const back = new URL(redirect)
      back.searchParams.set("code", code)
      back.searchParams.set("state", url.searchParams.get("state")!)
      res.writeHead(302, { location: back.href })
      return res.end()
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await readBody(req))
      const header = req.headers.authorization ?? ""
      tokenAuth.push(header.startsWith("Basic ") ? "basic" : form.has("client_secret") ? "post" : "none")
      // Compared as sent, not form-decoded (as the conformance suite's server and others do): an id of
      // letters, digits and "-" must reach it unescaped.
      const [id, secret] = header.startsWith("Basic ")
        ? Buffer.from(header.slice(6), "base64").toString("utf8").split(":")
        : []
      if (id === undefined || clients.get(id) !== secret)
        return json(res, 401, {
          error: "invalid_client",
          error_description: "Missing or invalid Authorization header",
        })
      if (form.get("grant_type") === "authorization_code") {
        const grant = codes.get(form.get("code") ?? "")
        const verifier = form.get("code_verifier") ?? ""
        const challenge = createHash("sha256").update(verifier).digest("base64url")
        if (grant === undefined || grant.challenge !== challenge)
          return json(res, 400, { error: "invalid_grant" })
      }
      return json(res, 200, {
        access_token: randomBytes(12).toString("hex"),
        token_type: "Bearer",
        expires_in: state.lifetimeSeconds,
      })
    }
    res.writeHead(404).end()
  })
  base = await listen(server)
  return { server, base, resource: `${base}/mcp`, tokenAuth, state }
}

describe("upstream OAuth against an authorization server the conformance suite models", () => {
  let as: Awaited<ReturnType<typeof basicOnlyAuthorizationServer>>
  let dir: string
  beforeAll(async () => {
    as = await basicOnlyAuthorizationServer()
    dir = await mkdtemp(join(tmpdir(), "toolplane-interop-"))
  })
  afterAll(async () => {
    await close(as?.server)
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("registers dynamically when the registration has a secret but no client_secret_expires_at, and authenticates with Basic", async () => {
    const store = new EncryptedTokenStore(join(dir, "dcr.json"), randomBytes(32))
    as.tokenAuth.length = 0
    const tokens = await authorizationCodeLogin({
      backend: "dcr",
      resource: as.resource,
      store,
      timeoutMs: 10_000,
      onAuthorizationUrl: (url) => {
        void fetch(url, { redirect: "manual" }).then((r) => fetch(r.headers.get("location")!))
      },
    })
    expect(tokens.clientId).toMatch(/^dcr-/)
    expect(as.tokenAuth).toEqual(["basic"])
    await expect(store.get(as.base, "dcr")).resolves.toMatchObject({ accessToken: tokens.accessToken })
  })

  it("logs in to a resource whose metadata only its 401 challenge names", async () => {
    const store = new EncryptedTokenStore(join(dir, "hidden.json"), randomBytes(32))
    const tokens = await authorizationCodeLogin({
      backend: "hidden",
      resource: `${as.base}/hidden`,
      store,
      clientId: "pre-registered",
      clientSecret: "pre-secret",
      timeoutMs: 10_000,
      onAuthorizationUrl: (url) => {
        expect(url.searchParams.get("resource")).toBe(`${as.base}/hidden`)
        void fetch(url, { redirect: "manual" }).then((r) => fetch(r.headers.get("location")!))
      },
    })
    expect(tokens).toMatchObject({
      issuer: as.base,
      resource: `${as.base}/hidden`,
      clientId: "pre-registered",
    })
  })

  it("falls back to the root well-known metadata URL when the path-inserted one is missing", async () => {
    const store = new EncryptedTokenStore(join(dir, "rooted.json"), randomBytes(32))
    const tokens = await authorizationCodeLogin({
      backend: "rooted",
      resource: `${as.base}/rooted`,
      store,
      clientId: "pre-registered",
      clientSecret: "pre-secret",
      timeoutMs: 10_000,
      onAuthorizationUrl: (url) => {
        void fetch(url, { redirect: "manual" }).then((r) => fetch(r.headers.get("location")!))
      },
    })
    expect(tokens).toMatchObject({ issuer: as.base, resource: `${as.base}/rooted` })
  })

  it("uses a token that lives less than the refresh skew and has no refresh token until it expires", async () => {
    const store = new EncryptedTokenStore(join(dir, "short.json"), randomBytes(32))
    as.state.lifetimeSeconds = 10
    try {
      const tokens = await authorizationCodeLogin({
        backend: "short",
        resource: as.resource,
        store,
        clientId: "pre-registered",
        clientSecret: "pre-secret",
        timeoutMs: 10_000,
        onAuthorizationUrl: (url) => {
          void fetch(url, { redirect: "manual" }).then((r) => fetch(r.headers.get("location")!))
        },
      })
      expect(tokens.refreshToken).toBeUndefined()
      const auth = oauthUpstreamAuth({
        backend: "short",
        resource: as.resource,
        grant: "authorization_code",
        clientId: "pre-registered",
        clientSecret: "pre-secret",
        store,
      })
      await expect(auth.authorization()).resolves.toBe(`Bearer ${tokens.accessToken}`)
    } finally {
      as.state.lifetimeSeconds = 3600
    }
  })

  it("uses HTTP Basic for a pre-registered client when the server offers only client_secret_basic", async () => {
    as.tokenAuth.length = 0
    const auth = oauthUpstreamAuth({
      backend: "m2m",
      resource: as.resource,
      grant: "client_credentials",
      clientId: "pre-registered",
      clientSecret: "pre-secret",
    })
    await expect(auth.authorization()).resolves.toMatch(/^Bearer [0-9a-f]{24}$/)
    expect(as.tokenAuth).toEqual(["basic"])
  })
})

/**
 * A stateless 2026-07-28 MCP server with one tool that answers the first request it gets with HTTP 400
 * and UnsupportedProtocolVersion (-32022), naming 2026-07-28 as supported. Records the methods it got.
 */
const versionRejectingServer = async () => {
  const methods: string[] = []
  let rejected = false
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end()
    const message = JSON.parse(await readBody(req)) as { id?: unknown; method: string }
    methods.push(message.method)
    if (!rejected) {
      rejected = true
      return json(res, 400, {
        jsonrpc: "2.0",
        id: message.id ?? null,
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: {
            supported: [MODERN_PROTOCOL_VERSION],
            requested: String(req.headers["mcp-protocol-version"]),
          },
        },
      })
    }
    const result =
      message.method === "server/discover"
        ? {
            resultType: "complete",
            supportedVersions: [MODERN_PROTOCOL_VERSION],
            capabilities: { tools: {} },
            serverInfo: { name: "rejecting", version: "1.0.0" },
          }
        : message.method === "tools/list"
          ? {
              resultType: "complete",
              ttlMs: 0,
              cacheScope: "private",
              tools: [{ name: "echo", inputSchema: { type: "object" } }],
            }
          : message.method === "tools/call"
            ? { resultType: "complete", content: [{ type: "text", text: "echoed" }] }
            : undefined
    if (result === undefined)
      return json(res, 200, {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      })
    json(res, 200, { jsonrpc: "2.0", id: message.id, result })
  })
  const base = await listen(server)
  return { server, url: `${base}/mcp`, methods }
}

describe("protocol negotiation when a 2026-07-28 server refuses the first request's version", () => {
  it("sends server/discover again with the version the server names as supported, and never initializes", async () => {
    const upstream = await versionRejectingServer()
    const backend = mcpBackend({ name: "r", http: { url: upstream.url } }, { reconnect: false })
    try {
      const tools = await backend.toolSchemas()
      expect(tools.map((t) => t.id)).toEqual(["r/echo"])
      await expect(
        backend.execute({ toolId: "r/echo", arguments: {} }, makeContext()),
      ).resolves.toMatchObject({
        content: [{ type: "text", text: "echoed" }],
      })
      expect(upstream.methods.slice(0, 2)).toEqual(["server/discover", "server/discover"])
      expect(upstream.methods).not.toContain("initialize")
    } finally {
      await backend.close()
      await close(upstream.server)
    }
  })
})

describe("elicitation defaults (SEP-1034) on a forwarded elicitation/create", () => {
  it("fills in the requested schema's defaults for fields the caller's accepted answer leaves out", async () => {
    const { Server } = await import("@modelcontextprotocol/sdk/server/index.js")
    const { StreamableHTTPServerTransport } = await import(
      "@modelcontextprotocol/sdk/server/streamableHttp.js"
    )
    const { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } = await import(
      "@modelcontextprotocol/sdk/types.js"
    )
    const answers: unknown[] = []
    const server = new Server({ name: "defaults", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "ask", inputSchema: { type: "object" as const } }],
    }))
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
      const answer = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "accept with defaults",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", default: "John Doe" },
                age: { type: "integer", default: 30 },
                status: { type: "string", enum: ["active", "inactive"], default: "active" },
                verified: { type: "boolean", default: true },
                note: { type: "string" },
              },
            },
          },
        },
        ElicitResultSchema,
      )
      answers.push(answer)
      return { content: [{ type: "text", text: "ok" }] }
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(8).toString("hex"),
    })
    await server.connect(transport)
    const http = createServer((req, res) => void transport.handleRequest(req, res))
    const base = await listen(http)
    const backend = mcpBackend(
      { name: "d", http: { url: `${base}/mcp` } },
      { reconnect: false, protocol: "2025-11-25" },
    )
    try {
      const ctx = makeContext({
        client: { elicitInput: async () => ({ action: "accept", content: { name: "Ada" } }) },
      })
      await backend.execute({ toolId: "d/ask", arguments: {} }, ctx)
      expect(answers).toEqual([
        { action: "accept", content: { name: "Ada", age: 30, status: "active", verified: true } },
      ])
    } finally {
      await backend.close()
      await server.close()
      await close(http)
    }
  })
})

/**
 * A 2025 MCP server over HTTP that puts its session id on every answer, the one to `server/discover`
 * included (which it answers with an empty result). Records the methods it got.
 */
const sessionOnEveryAnswerServer = async (
  tools: readonly Record<string, unknown>[] = [{ name: "echo", inputSchema: { type: "object" } }],
) => {
  const methods: string[] = []
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end()
    const message = JSON.parse(await readBody(req)) as { id?: unknown; method: string }
    methods.push(message.method)
    if (message.id === undefined) return void res.writeHead(202, { "mcp-session-id": "s-1" }).end()
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: "2025-03-26",
            capabilities: { tools: {} },
            serverInfo: { name: "session-everywhere", version: "1.0.0" },
          }
        : message.method === "tools/list"
          ? { tools }
          : {}
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" })
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
  })
  const base = await listen(server)
  return { server, url: `${base}/mcp`, methods }
}

describe("protocol negotiation with a 2025 server that names a session on its answer to the probe", () => {
  it.each(["node", "fetch"] as const)("initializes all the same (%s transport)", async (transport) => {
    const upstream = await sessionOnEveryAnswerServer()
    const backend = mcpBackend({ name: "s", http: { url: upstream.url, transport } }, { reconnect: false })
    try {
      expect((await backend.toolSchemas()).map((t) => t.id)).toEqual(["s/echo"])
      expect(upstream.methods.slice(0, 2)).toEqual(["server/discover", "initialize"])
      expect(backend.status().protocolVersion).toBe("2025-03-26")
    } finally {
      await backend.close()
      await close(upstream.server)
    }
  })
})

describe("SEP-2243: tools whose x-mcp-header annotations are invalid", () => {
  it("are left out of the listing with a warning; valid ones stay", async () => {
    const withHeader = (name: string, properties: Record<string, unknown>) => ({
      name,
      inputSchema: { type: "object", properties },
    })
    const upstream = await sessionOnEveryAnswerServer([
      withHeader("valid", { region: { type: "string", "x-mcp-header": "Region" }, n: { type: "integer" } }),
      withHeader("empty", { v: { type: "string", "x-mcp-header": "" } }),
      withHeader("object", { v: { type: "object", "x-mcp-header": "Data" } }),
      withHeader("number", { v: { type: "number", "x-mcp-header": "Score" } }),
      withHeader("space", { v: { type: "string", "x-mcp-header": "My Header" } }),
      withHeader("colon", { v: { type: "string", "x-mcp-header": "My:Header" } }),
      withHeader("nonascii", { v: { type: "string", "x-mcp-header": "Région" } }),
      withHeader("duplicate", {
        a: { type: "string", "x-mcp-header": "MyField" },
        b: { type: "boolean", "x-mcp-header": "myfield" },
      }),
    ])
    const backend = mcpBackend({ name: "h", http: { url: upstream.url } }, { reconnect: false })
    try {
      expect((await backend.toolSchemas()).map((t) => t.id)).toEqual(["h/valid"])
      const skipped = backend.status().warnings.filter((w) => w.feature === "x-mcp-header")
      expect(skipped.map((w) => w.toolId).sort()).toEqual([
        "h/colon",
        "h/duplicate",
        "h/empty",
        "h/nonascii",
        "h/number",
        "h/object",
        "h/space",
      ])
    } finally {
      await backend.close()
      await close(upstream.server)
    }
  })
})
