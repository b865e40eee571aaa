/**
 * `serveHttp` as an OAuth 2.1 resource server: JWTs signed with locally generated keys (a JWKS given
 * as a key set, never fetched), static bearer tokens, the protected-resource metadata document, and
 * refusing a public bind without authentication. Every refused request leaves the tool un-run.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ConfigError, defineTool, type ToolService, toolOf } from "@toolplane/foundation"
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { callerScopes, jwtAuth, type McpHttpServerHandle, serveHttp, staticTokenAuth } from "../src/index.js"

type KeyObjectLike = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]

const ISSUER = "https://auth.test"
const AUDIENCE = "https://gateway.test/mcp"

const count = defineTool({
  namespace: "demo",
  name: "count",
  description: "Counts its runs",
  input: z.object({}),
  handler: () => "counted",
})

/** A service with one tool that counts its runs and records the scopes each call carried. */
const countingService = () => {
  const state = { runs: 0, scopes: [] as (readonly string[] | undefined)[] }
  const service: ToolService = {
    listTools: async () => ({ tools: [toolOf(count)] }),
    callTool: async (request) => {
      state.runs++
      state.scopes.push(
        request.context && "metadata" in request.context ? callerScopes(request.context as never) : undefined,
      )
      return { content: [{ type: "text", text: "counted" }] }
    },
  }
  return { service, state }
}

const initialize = (url: string, authorization?: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  })

describe.each(["raw", "node", "sdk"] as const)(
  "serveHttp with JWT authentication (%s transport)",
  (transport) => {
    let privateKey: KeyObjectLike
    let otherKey: KeyObjectLike
    let jwks: { keys: JWK[] }
    let server: McpHttpServerHandle
    const { service, state } = countingService()

    const token = (
      claims: Record<string, unknown> = {},
      options: { key?: KeyObjectLike; exp?: string | number; aud?: string } = {},
    ) =>
      new SignJWT({ client_id: "agent-1", scope: "mcp tools", ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience(options.aud ?? AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(options.exp ?? "5m")
        .sign(options.key ?? privateKey)

    beforeAll(async () => {
      const pair = await generateKeyPair("ES256")
      privateKey = pair.privateKey
      otherKey = (await generateKeyPair("ES256")).privateKey
      jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] }
      server = await serveHttp(service, {
        transport,
        auth: jwtAuth({
          jwks,
          issuer: ISSUER,
          audience: AUDIENCE,
          requiredScopes: ["mcp"],
          scopesSupported: ["mcp", "tools"],
        }),
        resourceUrl: AUDIENCE,
      })
    })

    afterAll(async () => {
      await server?.close()
    })

    it("serves the protected-resource metadata document", async () => {
      const res = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", server.url))
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        resource: AUDIENCE,
        authorization_servers: [ISSUER],
        scopes_supported: ["mcp", "tools"],
        bearer_methods_supported: ["header"],
      })
    })

    it("answers 401 with WWW-Authenticate without a token, with a bad signature, a wrong audience or an expired token", async () => {
      const none = await initialize(server.url)
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
      )
      const cases = [
        [await token({}, { key: otherKey }), /signature verification failed/],
        [await token({}, { aud: "https://elsewhere.test" }), /claim aud invalid/],
        [await token({}, { exp: Math.floor(Date.now() / 1000) - 3600 }), /token expired/],
      ] as const
      for (const [jwt, reason] of cases) {
        const res = await initialize(server.url, `Bearer ${jwt}`)
        expect(res.status).toBe(401)
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/)
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(reason)
      }
    })

    it("answers 403 insufficient_scope for a token without a required scope", async () => {
      const res = await initialize(server.url, `Bearer ${await token({ scope: "tools" })}`)
      expect(res.status).toBe(403)
      expect(res.headers.get("www-authenticate")).toMatch(/error="insufficient_scope", scope="mcp"/)
    })

    it("runs calls with a valid token, passes its scopes to the service, and runs nothing for refused tokens", async () => {
      const good = await token()
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${good}` } },
      })
      const client = new Client({ name: "t", version: "1" })
      await client.connect(transport)
      const result = await client.callTool({ name: "demo.count", arguments: {} })
      expect(result.content).toEqual([{ type: "text", text: "counted" }])
      expect(state.runs).toBe(1)
      expect(state.scopes[0]).toEqual(["mcp", "tools"])
      // The same session with refused tokens: nothing runs.
      const call = (authorization: string) =>
        fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": transport.sessionId!,
            "mcp-protocol-version": "2025-11-25",
            authorization,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 9,
            method: "tools/call",
            params: { name: "demo.count", arguments: {} },
          }),
        })
      expect((await call(`Bearer ${await token({}, { key: otherKey })}`)).status).toBe(401)
      expect((await call(`Bearer ${await token({ scope: "tools" })}`)).status).toBe(403)
      expect((await call(`Bearer ${await token({ client_id: "agent-2" })}`)).status).toBe(404) // not its session
      expect(state.runs).toBe(1)
      await client.close()
    })
  },
)

describe("serveHttp with static tokens and public binds", () => {
  it("accepts only the configured tokens", async () => {
    const { service, state } = countingService()
    const server = await serveHttp(service, {
      auth: staticTokenAuth([{ token: "s3cret-token-0123456789", clientId: "ci", scopes: ["math"] }]),
    })
    try {
      expect((await initialize(server.url, "Bearer wrong-token")).status).toBe(401)
      expect((await initialize(server.url, "Basic s3cret-token-0123456789")).status).toBe(401)
      const client = new Client({ name: "t", version: "1" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: "Bearer s3cret-token-0123456789" } },
        }),
      )
      await client.callTool({ name: "demo.count", arguments: {} })
      expect(state.scopes).toEqual([["math"]])
      await client.close()
    } finally {
      await server.close()
    }
  })

  it("refuses to bind a non-loopback address without authentication, saying how to configure it", async () => {
    const { service } = countingService()
    const attempt = serveHttp(service, { host: "0.0.0.0", port: 0 })
    await expect(attempt).rejects.toBeInstanceOf(ConfigError)
    await expect(attempt).rejects.toThrow(/without authentication: configure bearer tokens or JWT validation/)
    const withAuth = await serveHttp(service, {
      host: "0.0.0.0",
      auth: staticTokenAuth([{ token: "t0123456789abcdef", clientId: "x" }]),
    })
    expect((await initialize(`http://127.0.0.1:${withAuth.port}/mcp`)).status).toBe(401)
    await withAuth.close()
  })
})
