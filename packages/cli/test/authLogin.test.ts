import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeContext } from "@toolplane/foundation"
import { AUTHENTICATED_CALLER_KEY } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { openGateway } from "../src/gateway.js"
import { runCli } from "./helpers/runCli.js"

/** The OAuth test servers of plugin-mcp (imported by path: they live outside this package's rootDir). */
interface OAuthServers {
  readonly upstream: {
    readonly url: string
    readonly seen: (string | undefined)[]
    readonly subjects: string[]
  }
  readonly redirectPort: number
  close(): Promise<void>
}
interface OAuthFixture {
  startOAuthServers(options?: { accessTokenTtlSeconds?: number }): Promise<OAuthServers>
  consentHeadlessly(authorizationUrl: URL, redirectPrefix: string, account?: string): Promise<URL>
}
const fixturePath = join(import.meta.dirname, "../../../plugins/mcp/test/fixtures/oauthServers.ts")
const { startOAuthServers, consentHeadlessly } = (await import(fixturePath)) as OAuthFixture

const env = {
  TOOLPLANE_CURSOR_SECRET: "test-secret-0123456789abcdef0123456789",
  TOKEN_KEY: Buffer.alloc(32, 9).toString("base64"),
  M2M_SECRET: "m2m-secret",
}

const cli = (argv: string[], onStdout?: (text: string) => void) =>
  runCli(argv, { env: { ...process.env, ...env }, ...(onStdout ? { onStdout } : {}) })

describe("toolplane auth login and OAuth backends in the configuration", () => {
  let servers: OAuthServers
  let dir: string
  const config = (name: string, auth: string) => {
    const file = join(dir, `${name}.toml`)
    writeFileSync(
      file,
      `[[backends]]\nname = "crm"\nmcp = { url = "${servers.upstream.url}" }\nrequire_approval = false\npin = "off"\nauth = ${auth}\n`,
    )
    return file
  }

  beforeAll(async () => {
    servers = await startOAuthServers({ accessTokenTtlSeconds: 60 })
    dir = mkdtempSync(join(tmpdir(), "toolplane-auth-"))
  })
  afterAll(async () => {
    await servers?.close()
  })

  it("calls a client-credentials backend", async () => {
    const file = config(
      "m2m",
      '{ type = "oauth", grant = "client_credentials", client_id = "m2m", client_secret_env = "M2M_SECRET", scopes = ["tools"] }',
    )
    const { code, stdout, stderr } = await cli(["call", "crm/echo", "--args", '{"text":"cc"}', "-c", file])
    expect(stderr).not.toMatch(/error|unavailable/i)
    expect(code).toBe(0)
    expect(stdout).toContain("echo: cc")
  })

  it("reports a backend without a token with the login command, then logs in and calls it", async () => {
    const file = config(
      "code",
      `{ type = "oauth", grant = "authorization_code", client_id = "gateway", scopes = ["tools"], token_key_env = "TOKEN_KEY", token_store = "code.tokens" }`,
    )
    const before = await cli(["call", "crm/echo", "--args", '{"text":"x"}', "-c", file])
    expect(before.code).not.toBe(0)
    expect(before.stderr).toContain("toolplane auth login crm")

    let consent: Promise<unknown> | undefined
    const login = await cli(
      ["auth", "login", "crm", "--port", String(servers.redirectPort), "-c", file],
      (text) => {
        const url = /https?:\/\/\S+\/auth\?\S+/.exec(text)?.[0]
        if (url !== undefined && consent === undefined)
          consent = consentHeadlessly(new URL(url), `http://127.0.0.1:${servers.redirectPort}/callback`).then(
            (callback) => fetch(callback),
          )
      },
    )
    expect(login.stderr).toBe("")
    expect(login.code).toBe(0)
    expect(login.stdout).toMatch(/Signed in to http:\/\/127\.0\.0\.1:\d+ for "crm"/)
    const bearer = servers.upstream.seen.filter((s) => s !== undefined)
    const store = join(dir, "code.tokens")
    expect(statSync(store).mode & 0o777).toBe(0o600)

    const after = await cli(["call", "crm/echo", "--args", '{"text":"ok"}', "-c", file])
    expect(after.code).toBe(0)
    expect(after.stdout).toContain("echo: ok")
    const token = servers.upstream.seen.at(-1)!.replace(/^Bearer /, "")
    expect(token.length).toBeGreaterThan(10)
    expect(bearer).not.toContain(`Bearer ${token}`)
    expect(readFileSync(store, "utf8")).not.toContain(token)
    expect(`${login.stdout}${after.stdout}${after.stderr}`).not.toContain(token)
  })

  it("per_caller: each caller consents with --caller and their calls carry their own token", async () => {
    const file = config(
      "per-caller",
      `{ type = "oauth", grant = "authorization_code", mode = "per_caller", client_id = "gateway", scopes = ["tools"], token_key_env = "TOKEN_KEY", token_store = "per-caller.tokens", max_callers = 8 }`,
    )
    const missing = await cli(["auth", "login", "crm", "-c", file])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("--caller ID")
    const service = config(
      "service",
      `{ type = "oauth", grant = "authorization_code", client_id = "gateway", token_key_env = "TOKEN_KEY" }`,
    )
    const misplaced = await cli(["auth", "login", "crm", "--caller", "alice-app", "-c", service])
    expect(misplaced.code).not.toBe(0)
    expect(misplaced.stderr).toContain('--caller applies to mode = "per_caller"')

    const loginAs = async (caller: string, account: string) => {
      let consent: Promise<unknown> | undefined
      const login = await cli(
        ["auth", "login", "crm", "--caller", caller, "--port", String(servers.redirectPort), "-c", file],
        (text) => {
          const url = /https?:\/\/\S+\/auth\?\S+/.exec(text)?.[0]
          if (url !== undefined && consent === undefined)
            consent = consentHeadlessly(
              new URL(url),
              `http://127.0.0.1:${servers.redirectPort}/callback`,
              account,
            ).then((callback) => fetch(callback))
        },
      )
      expect(login.stderr).toBe("")
      expect(login.code).toBe(0)
      expect(login.stdout).toContain(`as caller ${JSON.stringify(caller)}`)
    }
    await loginAs("alice-app", "alice")
    await loginAs("bob-app", "bob")

    // A one-shot call has no authenticated caller: the typed error says what is missing.
    const anonymous = await cli(["call", "crm/echo", "--args", '{"text":"x"}', "-c", file])
    expect(anonymous.code).not.toBe(0)
    expect(anonymous.stderr).toMatch(/needs the caller's own consent.*\[server\.auth\]/s)

    const gateway = await openGateway(parseConfig(readFileSync(file, "utf8")), {
      baseDir: dir,
      env: { ...process.env, ...env },
    })
    try {
      const as = (caller: string, text: string) =>
        gateway.service.callTool({
          name: "crm/echo",
          arguments: { text },
          // What `serve` sets from the verified token: `callerId` may be qualified by scopes, the key not.
          context: makeContext({
            callerId: JSON.stringify([caller, ["tools"]]),
            metadata: { [AUTHENTICATED_CALLER_KEY]: caller },
          }),
        })
      await expect(as("alice-app", "a")).resolves.toMatchObject({ content: [{ text: "echo: a" }] })
      expect(servers.upstream.subjects.at(-1)).toBe("alice")
      await expect(as("bob-app", "b")).resolves.toMatchObject({ content: [{ text: "echo: b" }] })
      expect(servers.upstream.subjects.at(-1)).toBe("bob")
      await expect(as("carol-app", "c")).rejects.toMatchObject({
        _tag: "UpstreamConsentRequired",
        message: expect.stringContaining("`toolplane auth login crm --caller carol-app`"),
      })
    } finally {
      await gateway.close()
    }
    const stored = readFileSync(join(dir, "per-caller.tokens"), "utf8")
    expect(stored).not.toContain("alice-app")
    expect(stored).not.toContain(servers.upstream.seen.at(-1)!.replace(/^Bearer /, ""))
  })
})

describe("backend auth configuration", () => {
  it.each([
    [
      'mcp = { command = "x" }\nauth = { type = "oauth", grant = "authorization_code" }',
      /"auth" needs an HTTP "mcp"/,
    ],
    [
      'mcp = { url = "http://127.0.0.1:1/mcp" }\nauth = { type = "oauth", grant = "client_credentials", client_id = "a" }',
      /client_credentials needs "client_id" and "client_secret_env"/,
    ],
    ['mcp = { url = "http://127.0.0.1:1/mcp" }\nauth = { type = "oauth", grant = "implicit" }', /grant/],
    [
      'mcp = { url = "http://127.0.0.1:1/mcp" }\nauth = { type = "oauth", grant = "client_credentials", client_id = "a", client_secret_env = "S", mode = "per_caller" }',
      /mode "per_caller" needs grant "authorization_code"/,
    ],
  ])("refuses %j", (backend, message) => {
    expect(() => parseConfig(`[[backends]]\nname = "b"\n${backend}\n`)).toThrow(message)
  })
})
