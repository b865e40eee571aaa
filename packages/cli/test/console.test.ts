/**
 * The web console in Debian's Chromium (playwright-core) against a real `toolplane serve --transport http`
 * subprocess with `[server.auth]` and `[console]`: it loads without console errors after signing in, shows
 * both backends (server-everything, SIGKILLed here, turns down and comes back), a call made by the MCP SDK
 * client appears in the feed, a durable run's pending approval (started in this process against the same
 * SQLite run store) is approved from the page and the run completes; without the admin scope the API
 * answers 401/403 and a POST without the CSRF token is refused. Screenshots go to .ci-results/console/.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { defineSkill } from "@toolplane/compose"
import { type DurableRunner, openDurableRunner } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium } from "./helpers/chromium.js"
import { FIXTURES, type HttpGateway, REPO, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const ARTIFACTS = join(REPO, ".ci-results", "console")
const ADMIN = "admin-token-0123456789abcdef"
const USER = "user-token-0123456789abcdef"
const dir = mkdtempSync(join(tmpdir(), "toolplane-console-"))
const runsFile = join(dir, "runs.db")
const config = join(dir, "console.toml")
// server-everything behind a switch: while the marker file exists it cannot start (reconnection fails).
const downMarker = join(dir, "everything.down")
const everything = join(dir, "everything.sh")
writeFileSync(
  everything,
  `#!/bin/sh\n[ -e "${downMarker}" ] && { echo "maintenance" >&2; exit 1; }\nexec "${join(REPO, "packages", "cli", "node_modules", ".bin", "mcp-server-everything")}" "$@"\n`,
  { mode: 0o755 },
)
writeFileSync(
  config,
  `[server]
transport = "http"

[server.auth]
tokens = [
  { env = "CONSOLE_ADMIN_TOKEN", client = "ops-admin", scopes = ["toolplane:admin", "toolplane:approve"] },
  { env = "CONSOLE_USER_TOKEN", client = "agent", scopes = ["agent"] },
]

[server.auth.scopes]
"toolplane:admin" = { tools = ["everything/*", "math/*"] }
agent = { tools = ["everything/*"] }

[console]
enabled = true
listen = "127.0.0.1:0"
runs = "runs.db"

[[backends]]
name = "local"
module = ${JSON.stringify(join(FIXTURES, "e2eTools.ts"))}

[[backends]]
name = "everything"
mcp = { command = ${JSON.stringify(everything)}, args = ["stdio"], env = { EVERYTHING_SECRET = "do-not-show-me" } }
require_approval = false
`,
)

/** Pids of the process tree under `root`. */
const descendants = (root: number): { pid: number; args: string }[] => {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }))
  const found: { pid: number; args: string }[] = []
  const walk = (pid: number) => {
    for (const row of rows.filter((r) => r.ppid === pid)) {
      found.push(row)
      walk(row.pid)
    }
  }
  walk(root)
  return found
}

/** The status of a GET with any headers (`Host` included). */
const rawStatus = (url: URL, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

const deployed: string[] = []
const deploy = defineTool({
  id: "ops/deploy",
  input: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
  annotations: { destructiveHint: true },
  handler: async (args: Record<string, unknown>) => {
    deployed.push(String(args.version))
    return { deployed: args.version }
  },
})
const release = defineSkill({
  name: "release",
  steps: [{ id: "deploy", tool: "ops/deploy", inputs: { version: { $ref: "$input#/version" } } }],
})

describe("web console in Chromium", () => {
  let gateway: HttpGateway
  let consoleUrl: string
  let browser: Browser
  let durable: DurableRunner
  let client: Client
  const errors: string[] = []

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    durable = await openDurableRunner({
      storage: runsFile,
      service: createRunner({ backends: [definitionBackend([deploy], { name: "ops" })] }),
    })
    ;[gateway, browser] = await Promise.all([
      startHttpGateway(config, { env: { CONSOLE_ADMIN_TOKEN: ADMIN, CONSOLE_USER_TOKEN: USER } }),
      launchChromium(),
    ])
    consoleUrl = /web console at (\S+)/.exec(gateway.stderr())![1]!
    client = new Client({ name: "console-test", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${USER}` } },
      }),
    )
  }, 60_000)

  afterAll(async () => {
    await client?.close().catch(() => {})
    await browser?.close()
    await stopAllGateways()
    await durable?.close()
    rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  const api = (path: string, init: RequestInit = {}) => fetch(new URL(`api/${path}`, consoleUrl), init)

  it("answers 401 without a token and 403 without the admin scope, with a strict CSP", async () => {
    const page = await fetch(consoleUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'self'.*frame-ancestors 'none'/)
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    expect(await page.text()).not.toMatch(/<script>|<style>|style=/)
    // DNS rebinding: a page of another site resolving to this address is refused, as on the MCP endpoint.
    expect(
      await rawStatus(new URL(consoleUrl), { host: `rebound.example:${new URL(consoleUrl).port}` }),
    ).toBe(403)
    expect(await rawStatus(new URL("api/session", consoleUrl), { origin: "http://rebound.example" })).toBe(
      403,
    )
    expect((await api("state")).status).toBe(401)
    expect((await api("state", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(
      401,
    )
    expect((await api("state", { headers: { authorization: `Bearer ${USER}` } })).status).toBe(403)
    const admin = await api("state", { headers: { authorization: `Bearer ${ADMIN}` } })
    expect(admin.status).toBe(200)
    const text = await admin.text()
    expect(text).not.toContain("do-not-show-me")
    expect(text).not.toContain(ADMIN)
    expect(text).toContain("CONSOLE_ADMIN_TOKEN")
    // The same scope policy as MCP listings: the admin scope grants everything/* and math/* only.
    const ids = (JSON.parse(text) as { tools: { id: string }[] }).tools.map((t) => t.id)
    expect(ids).toContain("math/divide")
    expect(ids).toContain("everything/echo")
    expect(ids.filter((id) => id.startsWith("notes/") || id.startsWith("bulk/"))).toEqual([])
    const search = (await (
      await api("search?q=echo", { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { hits: { id: string }[] }
    expect(search.hits.map((h) => h.id)).toContain("everything/echo")
    expect(search.hits.map((h) => h.id)).not.toContain("notes/echo")
  })

  const openSignedIn = async (): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on("pageerror", (error) => errors.push(error.message))
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    await page.goto(consoleUrl)
    await page.locator("#login").waitFor({ state: "visible" })
    await page.fill("#token", ADMIN)
    await page.click("#login button")
    await page.locator("#backends tbody tr").first().waitFor()
    // Signed in (the token is in sessionStorage): the 401 before it was expected; from here on, none.
    errors.length = 0
    await page.reload()
    await page
      .locator('#backends tr[data-backend="everything"][data-healthy="true"]')
      .waitFor({ timeout: 8000 })
    return page
  }

  it("shows both backends, the feed, approvals, tools and config; a killed backend goes down and comes back", async () => {
    const page = await openSignedIn()
    await expect(page.locator("#backends tbody tr").count()).resolves.toBe(2)
    await expect(page.locator('#backends tr[data-backend="local"] td').nth(1).textContent()).resolves.toBe(
      "up",
    )

    // A call by the MCP client appears in the feed.
    const result = await client.callTool({ name: "everything.echo", arguments: { message: "hi console" } })
    expect(result.isError).toBeFalsy()
    const row = page.locator('#feed tr[data-tool="everything/echo"]').first()
    await row.waitFor({ timeout: 5000 })
    await expect(row.textContent()).resolves.toMatch(/agent.*ms.*ok/s)
    await expect(page.locator("#chart svg polyline").getAttribute("points")).resolves.toMatch(/\d/)

    // The search box ranks with discovery's searcher and says which fields matched.
    await page.fill("#search", "divide numbers")
    const hit = page.locator('#tools tr[data-tool="math/divide"][data-score]')
    await hit.waitFor({ timeout: 5000 })
    await expect(hit.locator("td").nth(2).textContent()).resolves.toMatch(/name|description/)
    expect(Number(await hit.getAttribute("data-score"))).toBeGreaterThan(0)

    // A durable run waiting for approval, approved from the page; the run then completes.
    const started = await durable.start(release, { version: "3.1" })
    expect(started.status).toBe("suspended")
    const pending = page.locator(`.approval[data-run="${started.runId}"]`)
    await pending.waitFor({ timeout: 5000 })
    await expect(pending.locator("pre").textContent()).resolves.toContain('"version": "3.1"')
    await page.screenshot({ path: join(ARTIFACTS, "console.png"), fullPage: true })
    if (process.env.CONSOLE_DOC_SCREENSHOT === "1")
      copyFileSync(join(ARTIFACTS, "console.png"), join(REPO, "packages", "cli", "docs", "console.png"))
    await pending.locator("button.approve").click()
    await pending.waitFor({ state: "detached", timeout: 5000 })
    const [recovered] = await durable.recover()
    expect(recovered!.status).toBe("completed")
    expect(deployed).toEqual(["3.1"])

    // SIGKILL server-everything: the page shows it down, then up again once reconnected.
    const state = (await (await api("state", { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as {
      backends: { name: string; pid?: number }[]
    }
    const victim = state.backends.find((b) => b.name === "everything")?.pid
    expect(descendants(gateway.child.pid!).map((p) => p.pid)).toContain(victim)
    writeFileSync(downMarker, "")
    process.kill(victim!, "SIGKILL")
    await page
      .locator('#backends tr[data-backend="everything"][data-healthy="false"]')
      .waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(ARTIFACTS, "backend-down.png"), fullPage: true })
    await expect(page.locator('#backends tr[data-backend="everything"]').textContent()).resolves.toMatch(
      /down/,
    )
    rmSync(downMarker)
    await page
      .locator('#backends tr[data-backend="everything"][data-healthy="true"]')
      .waitFor({ timeout: 15_000 })

    // A reload (the config file changed) is reported with its result.
    writeFileSync(config, `${readFileSync(config, "utf8")}\n[limits]\nretries = 1\n`)
    await expect
      .poll(() => page.locator("#reload").textContent(), { timeout: 10_000 })
      .toMatch(/last reload .*: applied, \d+ tools/)
    await expect.poll(() => page.locator("#config").textContent(), { timeout: 5000 }).toMatch(/"retries": 1/)
    expect(errors).toEqual([])
    await page.close()
  }, 40_000)

  it("refuses an approval without the CSRF token, or with the reader's token", async () => {
    const started = await durable.start(release, { version: "9.9" })
    const path = `approvals/${started.runId}/deploy/approve`
    const noCsrf = await api(path, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}` },
      body: "{}",
    })
    expect(noCsrf.status).toBe(403)
    expect(((await noCsrf.json()) as { error: string }).error).toBe("csrf")
    const session = (await (
      await api("session", { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as {
      csrf: string
    }
    const wrongCsrf = await api(path, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "x-csrf-token": `${session.csrf.slice(1)}x` },
    })
    expect(wrongCsrf.status).toBe(403)
    const reader = await api(path, {
      method: "POST",
      headers: { authorization: `Bearer ${USER}`, "x-csrf-token": session.csrf },
    })
    expect(reader.status).toBe(403)
    const run = await durable.show(started.runId)
    expect(run.steps[0]!.status).toBe("awaiting_approval")
    // The right token and CSRF token decide it.
    const ok = await api(`approvals/${started.runId}/deploy/reject`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "x-csrf-token": session.csrf },
    })
    expect(ok.status).toBe(200)
  })
})
