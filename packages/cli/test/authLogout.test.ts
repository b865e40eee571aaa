/**
 * `toolplane auth logout` against a real authorization server (oidc-provider with RFC 7009 revocation):
 * what it prints and exits with, what the issuer and the token store hold afterwards, and that no token
 * text is ever printed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EncryptedTokenStore, parseTokenKey, type StoredTokens } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./helpers/runCli.js"

/** The OAuth test servers of plugin-mcp (imported by path: they live outside this package's rootDir). */
interface OAuthServers {
  readonly issuer: string
  readonly upstream: { readonly url: string }
  readonly redirectPort: number
  failRevocation(answer: number | "reset" | "echo" | undefined): void
  close(): Promise<void>
}
interface OAuthFixture {
  startOAuthServers(options?: { accessTokenTtlSeconds?: number; revocation?: boolean }): Promise<OAuthServers>
  consentHeadlessly(authorizationUrl: URL, redirectPrefix: string, account?: string): Promise<URL>
  refreshAtIssuer(servers: OAuthServers, refreshToken: string): Promise<{ status: number; error?: string }>
}
const fixturePath = join(import.meta.dirname, "../../../plugins/mcp/test/fixtures/oauthServers.ts")
const {
  startOAuthServers,
  consentHeadlessly,
  refreshAtIssuer: refresh,
} = (await import(fixturePath)) as OAuthFixture

const TOKEN_KEY = Buffer.alloc(32, 3).toString("base64")
const env = { TOOLPLANE_CURSOR_SECRET: "test-secret-0123456789abcdef0123456789", TOKEN_KEY }

const cli = (argv: string[], onStdout?: (text: string) => void) =>
  runCli(argv, { env: { ...process.env, ...env }, ...(onStdout ? { onStdout } : {}) })

describe("toolplane auth logout", () => {
  let servers: OAuthServers
  let plain: OAuthServers
  let dir: string
  const store = (file: string) =>
    new EncryptedTokenStore(join(dir, file), parseTokenKey(TOKEN_KEY, "TOKEN_KEY"))

  const config = (name: string, target: OAuthServers, extra = "") => {
    const file = join(dir, `${name}.toml`)
    writeFileSync(
      file,
      `[[backends]]\nname = "crm"\nmcp = { url = "${target.upstream.url}" }\nrequire_approval = false\npin = "off"\nauth = { type = "oauth", grant = "authorization_code", client_id = "gateway", scopes = ["tools"], token_key_env = "TOKEN_KEY", token_store = "${name}.tokens"${extra} }\n`,
    )
    return file
  }

  /** `toolplane auth login crm` with the consent given headlessly; what the store then holds. */
  const login = async (target: OAuthServers, file: string, tokens: string, caller?: string) => {
    let consent: Promise<unknown> | undefined
    const result = await cli(
      [
        "auth",
        "login",
        "crm",
        ...(caller !== undefined ? ["--caller", caller] : []),
        "--port",
        String(target.redirectPort),
        "-c",
        file,
      ],
      (text) => {
        const url = /https?:\/\/\S+\/auth\?\S+/.exec(text)?.[0]
        if (url !== undefined && consent === undefined)
          consent = consentHeadlessly(new URL(url), `http://127.0.0.1:${target.redirectPort}/callback`).then(
            (callback) => fetch(callback),
          )
      },
    )
    expect(result.code).toBe(0)
    return (await store(tokens).get(target.issuer, "crm", caller))!
  }

  const expectNoToken = (text: string, tokens: StoredTokens) => {
    expect(text).not.toContain(tokens.accessToken)
    expect(text).not.toContain(tokens.refreshToken!)
  }

  beforeAll(async () => {
    ;[servers, plain] = await Promise.all([
      startOAuthServers({ accessTokenTtlSeconds: 60 }),
      startOAuthServers({ accessTokenTtlSeconds: 60, revocation: false }),
    ])
    dir = mkdtempSync(join(tmpdir(), "toolplane-logout-"))
  })
  afterAll(async () => {
    await Promise.all([servers?.close(), plain?.close()])
  })

  it("revokes at the issuer and removes the tokens; the refresh token is refused afterwards", async () => {
    const file = config("service", servers)
    const tokens = await login(servers, file, "service.tokens")
    expect(tokens.refreshToken).toBeDefined()
    const logout = await cli(["auth", "logout", "crm", "-c", file])
    expect(logout.stderr).toBe("")
    expect(logout.code).toBe(0)
    expect(logout.stdout).toBe(
      `Revoked the tokens of "crm" at ${servers.issuer} (refresh token, access token) and removed them from ${join(dir, "service.tokens")}.\n`,
    )
    await expect(store("service.tokens").get(servers.issuer, "crm")).resolves.toBeUndefined()
    expect(await refresh(servers, tokens.refreshToken!)).toMatchObject({
      status: 400,
      error: "invalid_grant",
    })
    expectNoToken(`${logout.stdout}${logout.stderr}`, tokens)

    const again = await cli(["auth", "logout", "crm", "--json", "-c", file])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({
      ok: true,
      backend: "crm",
      credentials: [],
      store: join(dir, "service.tokens"),
    })
  })

  it("signs out one caller with --caller, as JSON", async () => {
    const file = config("per-caller", servers, ', mode = "per_caller"')
    const alice = await login(servers, file, "per-caller.tokens", "alice-app")
    const bob = await login(servers, file, "per-caller.tokens", "bob-app")
    const missing = await cli(["auth", "logout", "crm", "-c", file])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--caller ID")
    const logout = await cli(["auth", "logout", "crm", "--caller", "alice-app", "--json", "-c", file])
    expect(logout.code).toBe(0)
    expect(JSON.parse(logout.stdout)).toMatchObject({
      ok: true,
      caller: "alice-app",
      credentials: [
        { status: "revoked", issuer: servers.issuer, revoked: ["refresh_token", "access_token"] },
      ],
    })
    expectNoToken(logout.stdout, alice)
    expect(await refresh(servers, alice.refreshToken!)).toMatchObject({ error: "invalid_grant" })
    await expect(store("per-caller.tokens").get(servers.issuer, "crm", "alice-app")).resolves.toBeUndefined()
    await expect(store("per-caller.tokens").get(servers.issuer, "crm", "bob-app")).resolves.toMatchObject({
      refreshToken: bob.refreshToken,
    })
  })

  it("says the tokens were removed locally only when the issuer cannot revoke", async () => {
    const file = config("plain", plain)
    const tokens = await login(plain, file, "plain.tokens")
    const logout = await cli(["auth", "logout", "crm", "-c", file])
    expect(logout.code).toBe(0)
    expect(logout.stdout).toContain(
      `locally only: ${plain.issuer} offers no revocation endpoint, so they stay valid there until they expire`,
    )
    await expect(store("plain.tokens").get(plain.issuer, "crm")).resolves.toBeUndefined()
    expectNoToken(logout.stdout, tokens)
  })

  it("a failing revocation exits 1 with a typed error and keeps the tokens; --local-only removes them", async () => {
    const file = config("failing", servers)
    const tokens = await login(servers, file, "failing.tokens")
    servers.failRevocation(503)
    try {
      const failed = await cli(["auth", "logout", "crm", "--json", "-c", file])
      expect(failed.code).toBe(1)
      expect(failed.stderr).toMatch(/^toolplane: OAuthRevocationFailed: .*HTTP 503.*still stored/)
      expect(JSON.parse(failed.stdout)).toMatchObject({
        ok: false,
        backend: "crm",
        error: { type: "OAuthRevocationFailed", status: 503, removedLocally: false, issuer: servers.issuer },
      })
      expectNoToken(`${failed.stdout}${failed.stderr}`, tokens)
      await expect(store("failing.tokens").get(servers.issuer, "crm")).resolves.toMatchObject({
        refreshToken: tokens.refreshToken,
      })

      const local = await cli(["auth", "logout", "crm", "--local-only", "-c", file])
      expect(local.code).toBe(1)
      expect(local.stderr).toMatch(/OAuthRevocationFailed: .*removed from the store but stay valid/)
      expectNoToken(`${local.stdout}${local.stderr}`, tokens)
      await expect(store("failing.tokens").get(servers.issuer, "crm")).resolves.toBeUndefined()
    } finally {
      servers.failRevocation(undefined)
    }
  })

  it("refuses an unknown backend with a suggestion, an unknown action, and login-only flags", async () => {
    const file = config("usage", servers)
    const unknown = await cli(["auth", "logout", "cmr", "-c", file])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain(`"cmr" is not a configured backend; did you mean "crm"?`)
    const action = await cli(["auth", "logut", "crm", "-c", file])
    expect(action.code).toBe(2)
    expect(action.stderr).toContain(`did you mean "logout"?`)
    const port = await cli(["auth", "logout", "crm", "--port", "1", "-c", file])
    expect(port.code).toBe(2)
    expect(port.stderr).toContain("--port applies to auth login")
  })
})
