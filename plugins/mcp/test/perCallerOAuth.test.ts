/**
 * Each caller's own upstream token: two callers who consented as different users reach a protected MCP
 * server (checked by introspection at a real oidc-provider) and it sees each one's own subject; a caller
 * without consent, or with revoked tokens, gets UpstreamConsentRequired while the others go on; expired
 * tokens are refreshed; a token of issuer A never reaches issuer B; tokens stay out of errors, status and
 * the store's plaintext; and over `serveHttp` the caller is the one its gateway token names, whatever the
 * request says.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { createRunner } from "@toolplane/exec"
import { isToolError, makeContext, toolErrorFromJson } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AUTHENTICATED_CALLER_KEY,
  EncryptedTokenStore,
  parseTokenKey,
  perCallerMcpBackend,
  type StoredTokens,
  serveHttp,
  staticTokenAuth,
  UpstreamConsentRequired,
} from "../src/index.js"
import {
  close,
  listen,
  loginHeadlessly,
  protectedUpstream,
  startOAuthServers,
} from "./fixtures/oauthServers.js"

const ALICE = "alice-app"
const BOB = JSON.stringify(["shared-app", "bob"])

describe("per-caller upstream tokens (oidc-provider)", { timeout: 20_000 }, () => {
  let servers: Awaited<ReturnType<typeof startOAuthServers>>
  let dir: string
  let store: EncryptedTokenStore
  const consented = new Map<string, StoredTokens>()

  const login = (caller: string, account: string) => loginHeadlessly(servers, store, caller, account)

  beforeAll(async () => {
    servers = await startOAuthServers()
    dir = await mkdtemp(join(tmpdir(), "toolplane-per-caller-"))
    store = new EncryptedTokenStore(join(dir, "tokens"), parseTokenKey("cd".repeat(32), "key"))
    consented.set(ALICE, await login(ALICE, "alice"))
    consented.set(BOB, await login(BOB, "bob"))
  }, 20_000)
  afterAll(async () => {
    await servers?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const allTokens = () => [...consented.values()].flatMap((t) => [t.accessToken, t.refreshToken!])
  const echo = (text: string) => ({ toolId: "crm/echo", arguments: { text } })

  it("stores each caller's tokens apart, encrypted, and never as the service identity", async () => {
    expect(consented.get(ALICE)).toMatchObject({ caller: ALICE, issuer: servers.issuer })
    expect(consented.get(ALICE)!.accessToken).not.toBe(consented.get(BOB)!.accessToken)
    await expect(store.get(servers.issuer, "crm")).resolves.toBeUndefined()
    await expect(store.get(servers.issuer, "crm", ALICE)).resolves.toMatchObject({ caller: ALICE })
    await expect(store.callers("crm", servers.upstream.url)).resolves.toEqual([ALICE, BOB])
    const file = await readFile(store.path, "utf8")
    for (const token of allTokens()) expect(file).not.toContain(token)
    expect(file).not.toContain("alice-app")
  })

  it("sends each caller's own token: the upstream sees each one's subject; others are unaffected by a caller without consent", async () => {
    const { upstream } = servers
    const backend = perCallerMcpBackend(
      { name: "crm", http: { url: upstream.url }, store, clientId: "gateway" },
      { reconnect: false },
    )
    try {
      await backend.connect()
      expect((await backend.toolSchemas()).map((t) => t.id)).toEqual(["crm/echo"])
      for (const [caller, subject] of [
        [ALICE, "alice"],
        [BOB, "bob"],
        [ALICE, "alice"],
      ] as const) {
        const result = await backend.execute(echo(subject), makeContext({ callerId: caller }))
        expect(result.content).toEqual([{ type: "text", text: `echo: ${subject}` }])
        expect(upstream.subjects.at(-1)).toBe(subject)
        expect(upstream.seen.at(-1)).toBe(
          `Bearer ${(await store.get(servers.issuer, "crm", caller))!.accessToken}`,
        )
      }
      expect(backend.callerConnections()).toBe(2)
      // A layer that qualifies `callerId` (by scopes) does not change whose token is used.
      await backend.execute(
        echo("q"),
        makeContext({ callerId: `[${BOB},["tools"]]`, metadata: { [AUTHENTICATED_CALLER_KEY]: BOB } }),
      )
      expect(upstream.subjects.at(-1)).toBe("bob")
      expect(backend.callerConnections()).toBe(2)

      const before = upstream.seen.length
      const refused = await backend.execute(echo("c"), makeContext({ callerId: "carol" })).catch((e) => e)
      expect(refused).toBeInstanceOf(UpstreamConsentRequired)
      expect(refused).toMatchObject({ _tag: "UpstreamConsentRequired", backend: "crm", toolId: "crm/echo" })
      expect(refused.message).toContain("`toolplane auth login crm --caller carol`")
      // Nothing went upstream for carol, and the typed error survives JSON (as it crosses MCP).
      expect(upstream.seen.length).toBe(before)
      expect(
        toolErrorFromJson(JSON.parse(JSON.stringify({ ...refused, _tag: refused._tag }))),
      ).toBeInstanceOf(UpstreamConsentRequired)
      const anonymous = await backend.execute(echo("x"), makeContext()).catch((e) => e)
      expect(anonymous).toMatchObject({
        _tag: "UpstreamConsentRequired",
        remedy: expect.stringContaining("[server.auth]"),
      })

      await expect(backend.execute(echo("b"), makeContext({ callerId: BOB }))).resolves.toBeDefined()
      expect(upstream.subjects.at(-1)).toBe("bob")
      const exposed = JSON.stringify([refused.message, anonymous.message, backend.status()])
      for (const token of allTokens()) expect(exposed).not.toContain(token)
    } finally {
      await backend.close()
    }
  })

  it("refreshes a caller's expired token and keeps it that caller's", async () => {
    const backend = perCallerMcpBackend(
      { name: "crm", http: { url: servers.upstream.url }, store, clientId: "gateway", refreshSkewMs: 500 },
      { reconnect: false },
    )
    try {
      const first = (await store.get(servers.issuer, "crm", ALICE))!
      const bobBefore = (await store.get(servers.issuer, "crm", BOB))!
      await backend.execute(echo("1"), makeContext({ callerId: ALICE }))
      // Access tokens live 2 s: past expiry minus the skew, the next call refreshes first.
      await new Promise((r) => setTimeout(r, 1600))
      await backend.execute(echo("2"), makeContext({ callerId: ALICE }))
      const refreshed = (await store.get(servers.issuer, "crm", ALICE))!
      expect(refreshed.accessToken).not.toBe(first.accessToken)
      expect(refreshed.caller).toBe(ALICE)
      expect(servers.upstream.seen.at(-1)).toBe(`Bearer ${refreshed.accessToken}`)
      expect(servers.upstream.subjects.at(-1)).toBe("alice")
      expect((await store.get(servers.issuer, "crm", BOB))!.accessToken).toBe(bobBefore.accessToken)
      expect(await readFile(store.path, "utf8")).not.toContain(refreshed.accessToken)
      consented.set(ALICE, refreshed)
    } finally {
      await backend.close()
    }
  })

  it("never sends a caller's token of issuer A to a resource that names issuer B", async () => {
    const otherSeen: string[] = []
    const { createServer } = await import("node:http")
    const otherIssuer = createServer((req, res) => {
      otherSeen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`)
      const base = `http://127.0.0.1:${(otherIssuer.address() as { port: number }).port}`
      if (req.url === "/.well-known/oauth-authorization-server")
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ issuer: base, token_endpoint: `${base}/token` }))
      else {
        req.on("data", (c: Buffer) => otherSeen.push(c.toString("utf8")))
        req.on("end", () =>
          res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_grant"}'),
        )
      }
    })
    const otherBase = await listen(otherIssuer)
    const other = await protectedUpstream(() => otherBase)
    // Same backend name and store; the resource is another one, protected by issuer B.
    const backend = perCallerMcpBackend(
      { name: "crm", http: { url: other.url }, store },
      { reconnect: false },
    )
    try {
      await expect(backend.execute(echo("a"), makeContext({ callerId: ALICE }))).rejects.toMatchObject({
        _tag: "UpstreamConsentRequired",
      })
      const everything = [...other.seen, ...otherSeen].join("\n")
      for (const token of allTokens()) expect(everything).not.toContain(token)
    } finally {
      await backend.close()
      await close(other.server)
      await close(otherIssuer)
    }
  })

  it("bounds the caller connections (least recently used idle one closed) and closes idle ones", async () => {
    const backend = perCallerMcpBackend(
      {
        name: "crm",
        http: { url: servers.upstream.url },
        store,
        clientId: "gateway",
        maxCallers: 1,
        idleMs: 1000,
      },
      { reconnect: false },
    )
    try {
      await backend.execute(echo("a"), makeContext({ callerId: ALICE }))
      await backend.execute(echo("b"), makeContext({ callerId: BOB }))
      expect(backend.callerConnections()).toBe(1)
      expect(servers.upstream.subjects.at(-1)).toBe("bob")
      await backend.execute(echo("a"), makeContext({ callerId: ALICE }))
      expect(servers.upstream.subjects.at(-1)).toBe("alice")
      expect(backend.callerConnections()).toBe(1)
      await new Promise((r) => setTimeout(r, 2100))
      expect(backend.callerConnections()).toBe(0)
    } finally {
      await backend.close()
    }
  })

  it("takes the caller from the gateway's authentication, not from the request (no forged identity)", async () => {
    const backend = perCallerMcpBackend(
      { name: "crm", http: { url: servers.upstream.url }, store, clientId: "gateway" },
      { reconnect: false, requiresApproval: false },
    )
    await backend.connect()
    const runner = createRunner({ backends: [backend] })
    await runner.ready()
    const server = await serveHttp(runner, {
      auth: staticTokenAuth([
        { token: "gateway-token-alice-0123456789", clientId: ALICE },
        { token: "gateway-token-mallory-0123456", clientId: "mallory" },
      ]),
    })
    const clientOf = async (token: string) => {
      const client = new Client({ name: "t", version: "1" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      return client
    }
    const alice = await clientOf("gateway-token-alice-0123456789")
    const mallory = await clientOf("gateway-token-mallory-0123456")
    try {
      const tools = await alice.listTools()
      const name = tools.tools.find((t) => t.name.endsWith("echo"))!.name
      const own = await alice.callTool({ name, arguments: { text: "mine" } })
      expect(JSON.stringify(own.content)).toContain("echo: mine")
      expect(servers.upstream.subjects.at(-1)).toBe("alice")

      const seenBefore = servers.upstream.seen.length
      // Mallory names alice everywhere a request can carry a name: her call still has nobody's token.
      const forged = await mallory.callTool({
        name,
        arguments: { text: "theirs", callerId: ALICE },
        _meta: { callerId: ALICE, caller: ALICE, "io.toolplane/caller": ALICE },
      })
      expect(forged.isError).toBe(true)
      const text = JSON.stringify(forged)
      expect(text).toContain("UpstreamConsentRequired")
      expect(text).toContain("--caller mallory")
      expect(servers.upstream.seen.length).toBe(seenBefore)
      for (const token of allTokens()) expect(text).not.toContain(token)
    } finally {
      await alice.close()
      await mallory.close()
      await server.close()
      await backend.close()
    }
  })

  it("a revoked caller gets UpstreamConsentRequired; the other caller goes on", async () => {
    const backend = perCallerMcpBackend(
      { name: "crm", http: { url: servers.upstream.url }, store, clientId: "gateway", refreshSkewMs: 0 },
      { reconnect: false },
    )
    try {
      await backend.execute(echo("b"), makeContext({ callerId: BOB }))
      const bob = (await store.get(servers.issuer, "crm", BOB))!
      for (const token of [bob.refreshToken!, bob.accessToken]) {
        const res = await fetch(`${servers.issuer}/token/revocation`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ token, client_id: "gateway" }),
        })
        expect(res.status).toBe(200)
      }
      const error = await backend.execute(echo("b"), makeContext({ callerId: BOB })).catch((e) => e)
      expect(isToolError(error) && error._tag).toBe("UpstreamConsentRequired")
      expect(error.message).toContain(`--caller '${BOB}'`)
      expect(error.message).not.toContain(bob.accessToken)
      await expect(backend.execute(echo("a"), makeContext({ callerId: ALICE }))).resolves.toBeDefined()
      expect(servers.upstream.subjects.at(-1)).toBe("alice")
    } finally {
      await backend.close()
    }
  })
})
