/**
 * The web console of `toolplane serve` (a real subprocess with bearer-token auth) in Debian's chromium
 * driven by playwright-core: the page loads with no console errors under its Content-Security-Policy,
 * asks for a token, shows both backends healthy once given one with the console scope, and a call made
 * by an MCP client appears in its feed; the data API answers 401 without a token, 403 without the scope,
 * 405 to anything but GET. A screenshot is saved (its path is printed).
 */
import { existsSync, mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type Browser, chromium } from "playwright-core"
import { afterAll, describe, expect, it } from "vitest"
import { opsGatewaySuite } from "./helpers/opsGateway.js"
import { FIXTURES } from "./helpers/processes.js"

const CHROMIUM = "/usr/bin/chromium"
const ADMIN = "console-admin-token-0123456789abcdef"
const USER = "console-user-token-0123456789abcdef"

describe.skipIf(!existsSync(CHROMIUM))("web console (subprocess, chromium)", () => {
  const suite = opsGatewaySuite("toolplane-console-")
  let browser: Browser | undefined

  // After-hooks run last-registered first: the browser closes before the gateway stops.
  afterAll(async () => {
    await browser?.close()
  }, 20_000)

  it("shows backends and the live call feed to the console scope only", async () => {
    const gateway = await suite.start(
      [
        "[server.auth]",
        'tokens = [{ env = "ADMIN_TOKEN", client = "ops-admin", scopes = ["admin"] }, { env = "USER_TOKEN", client = "bob", scopes = ["tools"] }]',
        "[console]",
        "enabled = true",
        "[[backends]]",
        'name = "ops"',
        `module = ${JSON.stringify(join(FIXTURES, "opsTools.ts"))}`,
        "[[backends]]",
        'name = "pinger"',
        `mcp = { command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(join(FIXTURES, "pidServer.mjs"))}] }`,
        "require_approval = false",
        "",
      ],
      { env: { ADMIN_TOKEN: ADMIN, USER_TOKEN: USER } },
    )
    const consoleUrl = new URL("/console/", gateway.url)
    const api = new URL("/console/api/state", gateway.url)

    expect((await fetch(api)).status).toBe(401)
    expect((await fetch(api, { headers: { authorization: `Bearer ${USER}` } })).status).toBe(403)
    const ok = await fetch(api, { headers: { authorization: `Bearer ${ADMIN}` } })
    expect(ok.status).toBe(200)
    expect(
      ((await ok.json()) as { backends: { name: string }[] }).backends.map((b) => b.name).sort(),
    ).toEqual(["ops", "pinger"])
    expect((await fetch(api, { method: "POST", headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(
      405,
    )
    const page0 = await fetch(consoleUrl)
    expect(page0.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self'/)
    expect(await page0.text()).not.toContain("pinger")

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    })
    const page = await browser.newPage()
    const errors: string[] = []
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    page.on("pageerror", (error) => errors.push(error.message))
    await page.goto(consoleUrl.href)
    await page.locator("#status", { hasText: "sign in with a token" }).waitFor({ timeout: 10_000 })
    await page.fill("#token", ADMIN)
    await page.click("#use")
    await page.locator("#backends tbody tr", { hasText: "pinger" }).waitFor({ timeout: 10_000 })
    const backends = await page.locator("#backends tbody tr").allInnerTexts()
    expect(backends.map((r) => r.split("\t").slice(0, 2).join(" ")).sort()).toEqual([
      "ops healthy",
      "pinger healthy",
    ])

    const client = new Client({ name: "console-feed", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${USER}` } },
      }),
    )
    try {
      await client.callTool({ name: "ops.echo", arguments: { message: "seen in the console" } })
    } finally {
      await client.close()
    }
    const row = page.locator("#calls tbody tr", { hasText: "ops/echo" })
    await row.waitFor({ timeout: 10_000 })
    expect((await row.locator("td").allTextContents()).slice(1, 5)).toEqual(["ops/echo", "ops", "bob", "ok"])

    const artifacts = join(tmpdir(), "toolplane-test-artifacts")
    mkdirSync(artifacts, { recursive: true })
    const shot = join(artifacts, "console.png")
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`console screenshot: ${shot}`)
    expect(errors).toEqual([])
  }, 60_000)
})
