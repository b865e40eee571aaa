/**
 * Two users of one OAuth client are two callers: a `toolplane serve --transport http` subprocess that
 * validates JWTs against a local JWKS file, with `[prefetch]` on, fronting an MCP server
 * (fixtures/prefetchServer.ts, the official SDK) that counts its executions. Both users' tokens name the
 * same `client_id` and the same scopes; only `sub` differs. The call pattern one user teaches the gateway
 * must not make it prefetch (and serve) anything for the other user.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  FIXTURES,
  type HttpGateway,
  startHttpGateway,
  stopAllGateways,
  TSX,
  textOf,
} from "./helpers/processes.js"

const ISSUER = "https://issuer.test"
const AUDIENCE = "https://gateway.test"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>

const executions = async (call: Call): Promise<{ search: number; fetch: number }> =>
  JSON.parse(textOf(await call("docs.executions", {})))

describe("JWT users of one OAuth client", () => {
  let dir: string
  let http: HttpGateway
  let alice: Client
  let bob: Client

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-auth-jwt-users-"))
    const pair = await generateKeyPair("ES256")
    writeFileSync(
      join(dir, "jwks.json"),
      JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] }),
    )
    writeFileSync(
      join(dir, "jwt.toml"),
      [
        "[server]",
        "",
        "[server.auth]",
        'jwks_file = "jwks.json"',
        `issuer = "${ISSUER}"`,
        `audience = "${AUDIENCE}"`,
        "",
        "[prefetch]",
        "enabled = true",
        "",
        "[[backends]]",
        'name = "docs"',
        `mcp = { command = ${JSON.stringify(TSX)}, args = [${JSON.stringify(join(FIXTURES, "prefetchServer.ts"))}] }`,
        "require_approval = false",
        'read_only = ["docs/*"]',
        "",
      ].join("\n"),
    )
    http = await startHttpGateway(join(dir, "jwt.toml"))
    const connect = async (sub: string) => {
      const token = await new SignJWT({ client_id: "shared-app", sub, scope: "mcp" })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(pair.privateKey)
      const client = new Client({ name: "auth-jwt-users-test", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(http.url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      return client
    }
    alice = await connect("alice")
    bob = await connect("bob")
  }, 60_000)

  afterAll(async () => {
    await alice?.close()
    await bob?.close()
    await http?.stop()
    await stopAllGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  it("learns one user's call pattern for that user only", async () => {
    const aliceCall: Call = (name, args) => alice.callTool({ name, arguments: args })
    const bobCall: Call = (name, args) => bob.callTool({ name, arguments: args })
    // Alice teaches "search, then fetch the id it found" twice.
    for (const topic of ["alpha", "beta"]) {
      await aliceCall("docs.search", { topic })
      expect(textOf(await aliceCall("docs.fetch", { id: `doc-${topic}` }))).toBe(`contents of doc-${topic}`)
    }
    expect(await executions(aliceCall)).toEqual({ search: 2, fetch: 2 })
    // Bob searches: nothing Alice taught is prefetched for him.
    await bobCall("docs.search", { topic: "gamma" })
    await sleep(600)
    expect(await executions(bobCall)).toEqual({ search: 3, fetch: 2 })
    // Alice, same pattern: her follow-up is prefetched and served (the pattern was learned at all).
    await aliceCall("docs.search", { topic: "delta" })
    for (let i = 0; i < 50 && (await executions(aliceCall)).fetch < 3; i++) await sleep(20)
    expect(await executions(aliceCall)).toEqual({ search: 4, fetch: 3 })
    expect(textOf(await aliceCall("docs.fetch", { id: "doc-delta" }))).toBe("contents of doc-delta")
    expect(await executions(aliceCall)).toEqual({ search: 4, fetch: 3 })
  }, 30_000)
})
