/**
 * Processes sharing one encrypted token file, as a gateway per stdio client and `toolplane auth` beside
 * a running gateway do: real subprocesses, started together.
 */
import { spawn } from "node:child_process"
import { mkdir, mkdtemp, rm, stat, utimes } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EncryptedTokenStore, OAuthUpstreamError, parseTokenKey } from "../src/index.js"
import { loginHeadlessly, refreshAtIssuer, startOAuthServers } from "./fixtures/oauthServers.js"

const FIXTURE = join(import.meta.dirname, "fixtures", "tokenStoreProcess.ts")
const KEY = Buffer.alloc(32, 9).toString("base64")

/** Starts the fixture processes, lets them go at once, and resolves to the line each one printed. */
const race = async (argvs: readonly (readonly string[])[]): Promise<Record<string, unknown>[]> => {
  const children = argvs.map((argv) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@toolplane/source", "--import", "tsx", "--no-warnings", FIXTURE, ...argv],
      { stdio: ["pipe", "pipe", "pipe"] },
    )
    let out = ""
    let err = ""
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8")
    })
    const lines: Record<string, unknown>[] = []
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8")
        for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
          const line = JSON.parse(out.slice(0, nl)) as Record<string, unknown>
          out = out.slice(nl + 1)
          if (line.ready === true) resolve()
          else lines.push(line)
        }
      })
      child.on("close", (code) => reject(new Error(`fixture exited (${code}) before it was ready:\n${err}`)))
    })
    const exited = new Promise<Record<string, unknown>>((resolve, reject) =>
      child.on("close", (code) =>
        lines[0] !== undefined ? resolve(lines[0]) : reject(new Error(`fixture exited (${code}):\n${err}`)),
      ),
    )
    return { child, ready, exited }
  })
  await Promise.all(children.map((c) => c.ready))
  for (const { child } of children) child.stdin.write("go\n")
  return Promise.all(children.map((c) => c.exited))
}

describe("a token file shared by processes", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolplane-token-processes-"))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it("loses no process's entry when they store at the same time", async () => {
    const path = join(dir, "writes.json")
    const outcomes = await race([
      [path, KEY, "write", "a", "25"],
      [path, KEY, "write", "b", "25"],
      [path, KEY, "write", "c", "25"],
    ])
    expect(outcomes).toEqual([{ done: true }, { done: true }, { done: true }])
    const store = new EncryptedTokenStore(path, parseTokenKey(KEY, "key"))
    const missing: string[] = []
    for (const prefix of ["a", "b", "c"])
      for (let i = 0; i < 25; i++)
        if ((await store.get("https://issuer.example", `${prefix}-${i}`)) === undefined)
          missing.push(`${prefix}-${i}`)
    expect(missing).toEqual([])
  }, 60_000)

  it("takes over the lock a killed process left behind once it is stale, and removes it after", async () => {
    const path = join(dir, "stale.json")
    const store = new EncryptedTokenStore(path, parseTokenKey(KEY, "key"))
    await mkdir(`${path}.lock`)
    const minuteAgo = new Date(Date.now() - 60_000)
    await utimes(`${path}.lock`, minuteAgo, minuteAgo)
    const tokens = {
      issuer: "https://issuer.example",
      backend: "crm",
      resource: "https://mcp.example",
      clientId: "c",
      accessToken: "t",
    }
    await store.set(tokens)
    await expect(store.get(tokens.issuer, "crm")).resolves.toEqual(tokens)
    await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("names the lock when it cannot be made (the store's directory is missing)", async () => {
    const path = join(dir, "missing", "tokens.json")
    const store = new EncryptedTokenStore(path, parseTokenKey(KEY, "key"))
    const failure = await store.delete("https://issuer.example", "crm").catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OAuthUpstreamError)
    expect((failure as Error).message).toContain(`cannot make the lock ${path}.lock`)
  })

  describe("refreshing one login (oidc-provider, which rotates a public client's refresh tokens)", () => {
    let servers: Awaited<ReturnType<typeof startOAuthServers>>
    beforeAll(async () => {
      servers = await startOAuthServers()
    })
    afterAll(() => servers?.close())

    it("spends each refresh token once: every process is authorized and the grant stays alive", async () => {
      const path = join(dir, "login.json")
      const store = new EncryptedTokenStore(path, parseTokenKey(KEY, "key"))
      const login = await loginHeadlessly(servers, store)
      const outcomes = await race([
        [path, KEY, "authorize", servers.upstream.url],
        [path, KEY, "authorize", servers.upstream.url],
        [path, KEY, "authorize", servers.upstream.url],
      ])
      for (const outcome of outcomes)
        expect(outcome).toEqual({ authorization: expect.stringMatching(/^Bearer /) })
      const stored = (await store.get(servers.issuer, "crm"))!
      expect(stored.refreshToken).not.toBe(login.refreshToken)
      // The issuer still honours the stored refresh token: no reuse made it revoke the grant.
      const answer = await refreshAtIssuer(servers, stored.refreshToken!)
      expect({ status: answer.status, error: answer.error }).toEqual({ status: 200, error: undefined })
    }, 60_000)
  })
})
