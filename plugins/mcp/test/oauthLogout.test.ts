/**
 * Logout against a real authorization server (oidc-provider with RFC 7009 revocation): the refresh token
 * is refused by the token endpoint afterwards and the store forgets the credential; an issuer without a
 * revocation endpoint gets a "not revoked" result; a failing revocation keeps the credential (unless
 * `localOnly`) and is reported typed, without a token in it.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  EncryptedTokenStore,
  OAuthRevocationFailed,
  oauthLogout,
  parseTokenKey,
  type StoredTokens,
} from "../src/index.js"
import { loginHeadlessly, refreshAtIssuer, startOAuthServers } from "./fixtures/oauthServers.js"

type Servers = Awaited<ReturnType<typeof startOAuthServers>>

const login = loginHeadlessly

const refresh = refreshAtIssuer

const introspect = async (servers: Servers, token: string): Promise<boolean> => {
  const res = await fetch(`${servers.issuer}/token/introspection`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, client_id: "rs", client_secret: "rs-secret" }),
  })
  return ((await res.json()) as { active: boolean }).active
}

const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

const expectNoToken = (text: string, tokens: StoredTokens) => {
  expect(text).not.toContain(tokens.accessToken)
  expect(text).not.toContain(tokens.refreshToken!)
}

describe("OAuth logout with RFC 7009 revocation (oidc-provider)", () => {
  let servers: Servers
  let withoutRevocation: Servers
  let dir: string
  let store: EncryptedTokenStore
  let plainStore: EncryptedTokenStore

  beforeAll(async () => {
    ;[servers, withoutRevocation] = await Promise.all([
      startOAuthServers({ accessTokenTtlSeconds: 60 }),
      startOAuthServers({ accessTokenTtlSeconds: 60, revocation: false }),
    ])
    dir = await mkdtemp(join(tmpdir(), "toolplane-logout-"))
    const key = parseTokenKey(Buffer.alloc(32, 5).toString("base64"), "key")
    store = new EncryptedTokenStore(join(dir, "tokens"), key)
    plainStore = new EncryptedTokenStore(join(dir, "plain.tokens"), key)
  })
  afterAll(async () => {
    await Promise.all([servers?.close(), withoutRevocation?.close()])
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("revokes the refresh and access tokens at the issuer, then forgets them", async () => {
    const tokens = await login(servers, store)
    expect(await introspect(servers, tokens.accessToken)).toBe(true)
    const result = await oauthLogout({ backend: "crm", store })
    expect(result).toEqual({
      backend: "crm",
      credentials: [
        {
          status: "revoked",
          issuer: servers.issuer,
          endpoint: `${servers.issuer}/token/revocation`,
          revoked: ["refresh_token", "access_token"],
        },
      ],
    })
    await expect(store.get(servers.issuer, "crm")).resolves.toBeUndefined()
    await expect(store.issuers("crm")).resolves.toEqual([])
    expect(await refresh(servers, tokens.refreshToken!)).toMatchObject({
      status: 400,
      error: "invalid_grant",
    })
    expect(await introspect(servers, tokens.accessToken)).toBe(false)
    expectNoToken(JSON.stringify(result), tokens)
  })

  it("revokes the tokens a gateway stored during the logout before deleting them", async () => {
    await login(servers, store)
    let rotated: StoredTokens | undefined
    // A store whose first read is followed at once by a gateway's refresh (a real one, at the issuer).
    const racing = new (class extends EncryptedTokenStore {
      override async get(issuer: string, backend: string, caller?: string) {
        const held = await super.get(issuer, backend, caller)
        if (rotated === undefined && held !== undefined) {
          const answer = await refresh(servers, held.refreshToken!)
          rotated = { ...held, accessToken: answer.access_token!, refreshToken: answer.refresh_token! }
          await this.set(rotated)
        }
        return held
      }
    })(store.path, parseTokenKey(Buffer.alloc(32, 5).toString("base64"), "key"))
    const result = await oauthLogout({ backend: "crm", store: racing })
    expect(result.credentials).toMatchObject([{ status: "revoked", issuer: servers.issuer }])
    expect(rotated?.refreshToken).toBeDefined()
    await expect(store.get(servers.issuer, "crm")).resolves.toBeUndefined()
    // The refresh token the gateway stored meanwhile was revoked too, not just dropped.
    expect(await refresh(servers, rotated!.refreshToken!)).toMatchObject({
      status: 400,
      error: "invalid_grant",
    })
    expect(await introspect(servers, rotated!.accessToken)).toBe(false)
  })

  it("finds nothing to sign out when nothing is stored", async () => {
    await expect(oauthLogout({ backend: "crm", store })).resolves.toEqual({ backend: "crm", credentials: [] })
    await expect(oauthLogout({ backend: "other", caller: "x", store })).resolves.toEqual({
      backend: "other",
      caller: "x",
      credentials: [],
    })
  })

  it("signs out one caller of a per-caller backend and leaves the others and the service identity", async () => {
    const alice = await login(servers, store, "alice-app", "alice")
    const bob = await login(servers, store, "bob-app", "bob")
    const service = await login(servers, store)
    const result = await oauthLogout({ backend: "crm", caller: "alice-app", store })
    expect(result).toMatchObject({ caller: "alice-app", credentials: [{ status: "revoked" }] })
    await expect(store.get(servers.issuer, "crm", "alice-app")).resolves.toBeUndefined()
    expect(await refresh(servers, alice.refreshToken!)).toMatchObject({ error: "invalid_grant" })
    await expect(store.get(servers.issuer, "crm", "bob-app")).resolves.toMatchObject({
      accessToken: bob.accessToken,
    })
    await expect(store.get(servers.issuer, "crm")).resolves.toMatchObject({
      accessToken: service.accessToken,
    })
    expect(await introspect(servers, bob.accessToken)).toBe(true)
    expect(await introspect(servers, service.accessToken)).toBe(true)
    await oauthLogout({ backend: "crm", caller: "bob-app", store })
    await oauthLogout({ backend: "crm", store })
    await expect(store.issuers("crm")).resolves.toEqual([])
  })

  it("removes the tokens locally and says they were not revoked when the issuer has no revocation endpoint", async () => {
    const tokens = await login(withoutRevocation, plainStore)
    const result = await oauthLogout({ backend: "crm", store: plainStore })
    expect(result.credentials).toEqual([
      { status: "not_revoked", issuer: withoutRevocation.issuer, reason: "no_revocation_endpoint" },
    ])
    await expect(plainStore.get(withoutRevocation.issuer, "crm")).resolves.toBeUndefined()
    // Not revoked, and said so: the issuer still honours the refresh token.
    expect(await refresh(withoutRevocation, tokens.refreshToken!)).toMatchObject({ status: 200 })
  })

  it("keeps the credential and reports a typed error when the revocation endpoint fails; retrying works", async () => {
    const tokens = await login(servers, store)
    servers.failRevocation(503)
    try {
      const error = await failureOf(oauthLogout({ backend: "crm", store }))
      expect(error).toBeInstanceOf(OAuthRevocationFailed)
      expect(error).toMatchObject({
        backend: "crm",
        issuer: servers.issuer,
        endpoint: `${servers.issuer}/token/revocation`,
        status: 503,
        revoked: [],
        removedLocally: false,
        message: expect.stringMatching(/HTTP 503.*still stored: retry `toolplane auth logout crm`/),
      })
      expectNoToken(`${(error as Error).message} ${JSON.stringify(error)}`, tokens)
      await expect(store.get(servers.issuer, "crm")).resolves.toMatchObject({
        accessToken: tokens.accessToken,
      })
      expect(await introspect(servers, tokens.accessToken)).toBe(true)
    } finally {
      servers.failRevocation(undefined)
    }
    await expect(oauthLogout({ backend: "crm", store })).resolves.toMatchObject({
      credentials: [{ status: "revoked" }],
    })
    expect(await refresh(servers, tokens.refreshToken!)).toMatchObject({ error: "invalid_grant" })
  })

  it("deletes the credential anyway with localOnly, and still reports the failure", async () => {
    const tokens = await login(servers, store)
    servers.failRevocation("reset")
    try {
      const error = await failureOf(oauthLogout({ backend: "crm", store, localOnly: true }))
      expect(error).toBeInstanceOf(OAuthRevocationFailed)
      expect(error).toMatchObject({ removedLocally: true, revoked: [] })
      expect((error as Error).message).toMatch(/removed from the store but stay valid at the issuer/)
      expectNoToken((error as Error).message, tokens)
      await expect(store.get(servers.issuer, "crm")).resolves.toBeUndefined()
      expect(await introspect(servers, tokens.accessToken)).toBe(true)
    } finally {
      servers.failRevocation(undefined)
    }
  })

  it("never repeats a token a refusing server echoes in its error description", async () => {
    const tokens = await login(servers, store)
    servers.failRevocation("echo")
    try {
      const error = await failureOf(oauthLogout({ backend: "crm", store }))
      expect(error).toMatchObject({
        status: 400,
        removedLocally: false,
        reason: "HTTP 400: invalid_request: cannot revoke [token]",
      })
      expectNoToken(`${(error as Error).message} ${JSON.stringify(error)}`, tokens)
    } finally {
      servers.failRevocation(undefined)
    }
    await expect(oauthLogout({ backend: "crm", store })).resolves.toMatchObject({
      credentials: [{ status: "revoked" }],
    })
  })

  it("keeps the credential when the authorization server is down (stopped provider)", async () => {
    const tokens = await login(servers, store, "carol-app", "carol")
    await servers.close()
    const error = await failureOf(oauthLogout({ backend: "crm", caller: "carol-app", store }))
    expect(error).toBeInstanceOf(OAuthRevocationFailed)
    expect(error).toMatchObject({ issuer: servers.issuer, removedLocally: false, caller: "carol-app" })
    expect((error as Error).message).toMatch(/no valid metadata for authorization server/)
    expect((error as Error).message).toContain("toolplane auth logout crm --caller carol-app")
    expectNoToken((error as Error).message, tokens)
    await expect(store.get(servers.issuer, "crm", "carol-app")).resolves.toMatchObject({
      refreshToken: tokens.refreshToken,
    })
  })
})
