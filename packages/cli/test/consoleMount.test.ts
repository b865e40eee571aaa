/**
 * The web console mounted at `[console] path = "/console"` of a real `toolplane serve --transport http`
 * on the raw transport (which hands routed requests to node:http), with bearer auth and `[metrics] path`
 * on the same hook beside it: the page in Debian's Chromium, 401/403 without the scopes, CSRF and foreign
 * Host/Origin refused, the MCP endpoint serving beside it. Approvals in flight: an SDK v2 client
 * (2026-07-28) gets `input_required`, the approval is listed in the page (tool, caller, arguments, age),
 * the operator rejects it there, and the client's retry with its user's acceptance is refused
 * (`rejected`) without the tool running; a 2025 client's held elicitation is listed and rejected too (the
 * call ends `ApprovalDenied`). A reader's token and a token whose scopes do not grant the tool can neither
 * reject nor see it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium, pageWithErrors } from "./helpers/chromium.js"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const ADMIN = "admin-token-0123456789abcdef"
const READER = "reader-token-0123456789abcdef"
const NARROW = "narrow-token-0123456789abcdef"
const AGENT = "agent-token-0123456789abcdef"
const dir = mkdtempSync(join(tmpdir(), "toolplane-console-mount-"))
const launchLog = join(dir, "launches.log")
const config = join(dir, "console.toml")
writeFileSync(
  config,
  `[server]
transport = "http"
http_transport = "raw"

[server.auth]
tokens = [
  { env = "T_ADMIN", client = "ops-admin", scopes = ["console:read", "console:act", "ops"] },
  { env = "T_READER", client = "ops-reader", scopes = ["console:read", "ops"] },
  { env = "T_NARROW", client = "ops-narrow", scopes = ["console:read", "console:act"] },
  { env = "T_AGENT", client = "agent", scopes = ["ops"] },
]

[server.auth.scopes]
ops = { tools = ["ops/*"] }

[console]
enabled = true
path = "/console"
read_scope = "console:read"
action_scope = "console:act"

[metrics]
path = "/metrics"

[[backends]]
name = "ops"
module = ${JSON.stringify(join(FIXTURES, "recordedLaunch.ts"))}
require_approval = true
approval = "elicit"
`,
)

const launches = () =>
  existsSync(launchLog) ? readFileSync(launchLog, "utf8").split("\n").filter(Boolean) : []

/** A deferred value the test settles (a client's user answering later). */
const deferred = <T>() => {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((ok) => {
    resolve = ok
  })
  return { promise, resolve }
}

/** A raw request, so `Host` and `Origin` can be anything. */
const rawGet = (url: URL, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

describe("web console at a path of the MCP server", () => {
  let gateway: HttpGateway
  let consoleUrl: URL
  let browser: Browser
  const errors: string[] = []

  beforeAll(async () => {
    ;[gateway, browser] = await Promise.all([
      startHttpGateway(config, {
        env: { T_ADMIN: ADMIN, T_READER: READER, T_NARROW: NARROW, T_AGENT: AGENT, LAUNCH_LOG: launchLog },
      }),
      launchChromium(),
    ])
    consoleUrl = new URL(/web console at (\S+)/.exec(gateway.stderr())![1]!)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await stopAllGateways()
    rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  const api = (path: string, token?: string, init: RequestInit = {}) =>
    fetch(new URL(`api/${path}`, consoleUrl), {
      ...init,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
    })
  const csrfOf = async (token: string) =>
    ((await (await api("session", token)).json()) as { csrf: string }).csrf
  const inflight = async (token: string) =>
    (
      (await (await api("state", token)).json()) as {
        approvals: {
          inflight: { id: string; kind: string; tool: string; caller: string; arguments: unknown }[]
        }
      }
    ).approvals.inflight

  it("is served under the path with its CSP and scopes, beside the MCP endpoint and metrics", async () => {
    expect(consoleUrl.pathname).toBe("/console/")
    expect(consoleUrl.host).toBe(gateway.url.host)
    const bare = await fetch(new URL("/console", consoleUrl), { redirect: "manual" })
    expect(bare.status).toBe(308)
    expect(bare.headers.get("location")).toBe("/console/")
    const page = await fetch(consoleUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'self'.*frame-ancestors 'none'/)
    expect((await api("state")).status).toBe(401)
    expect((await api("state", AGENT)).status).toBe(403)
    expect((await api("state", READER)).status).toBe(200)
    // Host and Origin are checked as for the MCP endpoint (DNS rebinding).
    expect(await rawGet(consoleUrl, { host: `evil.example:${consoleUrl.port}` })).toBe(403)
    expect(await rawGet(consoleUrl, { origin: "http://evil.example" })).toBe(403)
    expect(await rawGet(consoleUrl, { origin: consoleUrl.origin })).toBe(200)
    // metrics on the same hook, behind the bearer token
    expect((await fetch(new URL("/metrics", consoleUrl))).status).toBe(401)
    const metrics = await fetch(new URL("/metrics", consoleUrl), {
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toMatch(/^# HELP toolplane_/m)
    // the MCP endpoint still serves (a 2025 client, over the same listener)
    const client = new ClientV1({ name: "beside", version: "1.0.0" })
    await client.connect(
      new TransportV1(gateway.url, { requestInit: { headers: { authorization: `Bearer ${AGENT}` } } }),
    )
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["ops.launch"])
    await client.close()
  })

  it("an SDK v2 client's input_required approval is listed; the operator rejects it and the retry runs nothing", async () => {
    const asked = deferred<string>()
    const answer = deferred<void>()
    const client = new ClientV2(
      { name: "v2-agent", version: "2.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    )
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.resolve(String((request.params as { message?: unknown }).message))
      // The user answers only after the operator has rejected the request in the console.
      await answer.promise
      return { action: "accept", content: { approve: true } }
    })
    await client.connect(
      new TransportV2(gateway.url, { requestInit: { headers: { authorization: `Bearer ${AGENT}` } } }),
    )
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    const call = client.callTool({ name: "ops.launch", arguments: { target: "moon" } }).then(
      (result) => ({ result }),
      (error: unknown) => ({
        error: error as { code?: number; message: string; data?: { reason?: string } },
      }),
    )
    expect(await asked.promise).toContain('"target": "moon"')

    // Those whose scopes do not grant the tool do not see it; a reader sees it but cannot reject it.
    expect(await inflight(NARROW)).toEqual([])
    const [listed] = await inflight(READER)
    expect(listed).toMatchObject({ kind: "input_required", tool: "ops/launch", caller: "agent" })
    expect(listed!.arguments).toEqual({ target: "moon" })
    const byReader = await api(`inflight/${listed!.id}/reject`, READER, {
      method: "POST",
      headers: { "x-csrf-token": await csrfOf(READER) },
    })
    expect(byReader.status).toBe(403)
    const byNarrow = await api(`inflight/${listed!.id}/reject`, NARROW, {
      method: "POST",
      headers: { "x-csrf-token": await csrfOf(NARROW) },
    })
    expect(byNarrow.status).toBe(404)
    const noCsrf = await api(`inflight/${listed!.id}/reject`, ADMIN, { method: "POST" })
    expect(noCsrf.status).toBe(403)
    expect(((await noCsrf.json()) as { error: string }).error).toBe("csrf")

    // The operator rejects it in the page.
    const page = await pageWithErrors(browser, errors)
    await page.goto(consoleUrl.href)
    await page.locator("#login").waitFor({ state: "visible" })
    await page.fill("#token", ADMIN)
    await page.click("#login button")
    const row = page.locator('.approval[data-kind="input_required"]')
    await row.waitFor({ timeout: 8000 })
    await expect(row.textContent()).resolves.toMatch(/ops\/launch.*caller agent.*waiting \d+ s/s)
    await expect(row.locator("pre").textContent()).resolves.toContain('"target": "moon"')
    await expect(row.locator("button.approve").count()).resolves.toBe(0)
    errors.length = 0
    await row.locator("button.reject").click()
    await row.waitFor({ state: "detached", timeout: 5000 })
    expect(await inflight(ADMIN)).toEqual([])

    // The user accepts now: the SDK retries with the state, which is refused; the tool never ran.
    answer.resolve()
    const outcome = await call
    expect("error" in outcome).toBe(true)
    const error = (outcome as { error: { code?: number; message: string } }).error
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/rejected/)
    expect(launches()).toEqual([])
    expect(errors).toEqual([])
    await page.close()
    await client.close()
  }, 30_000)

  it("a 2025 client's held elicitation is listed and rejected: the call ends ApprovalDenied without running", async () => {
    const asked = deferred<void>()
    const release = deferred<void>()
    const client = new ClientV1({ name: "v1-agent", version: "1.0.0" }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.resolve()
      await release.promise
      return { action: "accept", content: { approve: true } }
    })
    await client.connect(
      new TransportV1(gateway.url, { requestInit: { headers: { authorization: `Bearer ${AGENT}` } } }),
    )
    const call = client.callTool({ name: "ops.launch", arguments: { target: "mars" } })
    await asked.promise
    const [held] = await inflight(ADMIN)
    expect(held).toMatchObject({ kind: "elicitation", tool: "ops/launch", arguments: { target: "mars" } })
    const rejected = await api(`inflight/${held!.id}/reject`, ADMIN, {
      method: "POST",
      headers: { "x-csrf-token": await csrfOf(ADMIN) },
    })
    expect(rejected.status).toBe(200)
    const result = await call
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toMatch(/rejected in the console by ops-admin/)
    release.resolve()
    // Rejected again: it is no longer waiting.
    const again = await api(`inflight/${held!.id}/reject`, ADMIN, {
      method: "POST",
      headers: { "x-csrf-token": await csrfOf(ADMIN) },
    })
    expect(again.status).toBe(404)
    expect(launches()).toEqual([])
    await client.close()
  })
})
