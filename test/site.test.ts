/**
 * The documentation site in a real browser: the built VitePress site (`pnpm --filter @toolplane/site build`,
 * which `.ci/run` runs before the tests; built here when missing) is served on loopback and opened in
 * Debian's Chromium through playwright-core: the home page, a guide, a package page and an API page render
 * their content, internal links navigate, and the local search finds a documented export.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { extname, join, normalize } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")
const DIST = join(ROOT, "site", ".vitepress", "dist")
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
}

/** A static server with VitePress's clean URLs (`/guide/x` → `guide/x.html`). */
const serveDist = (): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(
        /^(\.\.[/\\])+/,
        "",
      )
      const candidates = [join(DIST, path), join(DIST, `${path}.html`), join(DIST, path, "index.html")]
      const file = candidates.find((f) => f.startsWith(DIST) && existsSync(f) && statSync(f).isFile())
      if (!file) {
        res.writeHead(404).end("not found")
        return
      }
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" })
      res.end(readFileSync(file))
    })
    server.listen(0, "127.0.0.1", () => resolve(server))
  })

describe("documentation site in Chromium", () => {
  let server: Server
  let browser: Browser
  let base: string
  const errors: string[] = []

  beforeAll(async () => {
    if (!existsSync(join(DIST, "index.html")))
      execFileSync("pnpm", ["--filter", "@toolplane/site", "build"], { cwd: ROOT, stdio: "inherit" })
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`)
    server = await serveDist()
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    })
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  const open = async (path: string): Promise<Page> => {
    const page = await browser.newPage()
    page.on("pageerror", (error) => errors.push(`${path}: ${error.message}`))
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`${path}: ${message.text()} (${message.location().url})`)
    })
    const response = await page.goto(`${base}${path}`)
    expect(response?.status(), path).toBe(200)
    return page
  }

  it("renders the home page, and its action links reach the guides and packages", async () => {
    const page = await open("/")
    await expect(page.locator(".VPHero .name").textContent()).resolves.toContain("Toolplane")
    await page.getByRole("link", { name: "API reference" }).first().click()
    await page.waitForURL(/\/api\/?$/)
    await expect(page.locator("main").textContent()).resolves.toContain("@toolplane/foundation")
    await page.close()
  })

  it("renders a guide, a package page and an API page with their content", async () => {
    const guide = await open("/guide/architecture")
    await expect(guide.locator("main h1").textContent()).resolves.toContain("Toolplane architecture")
    await guide.close()
    const pkg = await open("/packages/cli")
    await expect(pkg.locator("main h1").textContent()).resolves.toContain("@toolplane/cli")
    await pkg.close()
    const api = await open("/api/@toolplane/foundation")
    await expect(api.locator("main").textContent()).resolves.toContain("defineTool")
    await api.close()
  }, 60_000)

  it("finds a documented export through the local search", async () => {
    const page = await open("/guide/architecture")
    await page.locator(".VPNavBarSearch button").first().click()
    await page.locator("#localsearch-input").fill("defineTool")
    const results = page.locator(".VPLocalSearchBox .result")
    await results.first().waitFor({ timeout: 15_000 })
    expect(await results.count()).toBeGreaterThan(0)
    await page.close()
  })

  it("logged no errors in the browser", () => {
    expect(errors).toEqual([])
  })
})
