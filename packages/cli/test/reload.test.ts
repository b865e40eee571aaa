/**
 * Hot reload under load: `toolplane serve --transport http` (a subprocess) with 200 calls in flight
 * while its config file changes (a backend added): every call answers, the client gets
 * `notifications/tools/list_changed` on the same session and the new tools are callable; then an invalid
 * file is rejected with its located error while the previous configuration keeps serving.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, describe, expect, it } from "vitest"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways, textOf } from "./helpers/processes.js"

const slow = ["[[backends]]", 'name = "slow"', `module = "${join(FIXTURES, "reloadTools.ts")}"`, ""]
const local = ["[[backends]]", 'name = "local"', `module = "${join(FIXTURES, "tools.ts")}"`, ""]

const until = async (check: () => boolean, what: string, ms = 15_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("hot reload", () => {
  let dir: string | undefined
  let gateway: HttpGateway | undefined

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it("applies a new configuration under load without losing a call, and rejects an invalid one", async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-reload-"))
    const file = join(dir, "toolplane.toml")
    writeFileSync(file, ["[server]", "page_size = 100", "", ...slow].join("\n"))
    gateway = await startHttpGateway(file)
    const client = new Client({ name: "reload", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(gateway.url))
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    const names = async () => (await client.listTools()).tools.map((t) => t.name)
    expect(await names()).toEqual(["slow.wait"])

    let settled = 0
    const calls = Array.from({ length: 200 }, (_, n) =>
      client
        .callTool({ name: "slow.wait", arguments: { n, ms: 1500 } }, undefined, { timeout: 30_000 })
        .finally(() => {
          settled++
        }),
    )
    await new Promise((r) => setTimeout(r, 300))
    writeFileSync(file, ["[server]", "page_size = 100", "", ...slow, ...local].join("\n"))
    await until(() => changed > 0, "list_changed after the reload")
    // The swap happened while the calls were in flight.
    expect(settled).toBeLessThan(200)
    expect(gateway.stderr()).toMatch(/reloaded .*toolplane\.toml \(file changed\): added local/)

    const results = await Promise.allSettled(calls)
    const failed = results.filter(
      (r) => r.status === "rejected" || (r.value as { isError?: boolean }).isError,
    )
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([])
    expect(results.map((r) => textOf((r as PromiseFulfilledResult<unknown>).value))).toEqual(
      Array.from({ length: 200 }, (_, n) => `waited ${n}`),
    )
    expect(await names()).toEqual(expect.arrayContaining(["slow.wait", "notes.echo", "math.divide"]))
    expect(textOf(await client.callTool({ name: "notes.echo", arguments: { message: "hi" } }))).toBe(
      "notes echo: hi",
    )

    // An invalid configuration: rejected with its location, the previous one keeps serving.
    writeFileSync(
      file,
      ["[server]", "page_size = 100", "", ...slow, "[[backends]]", "name = 5", ""].join("\n"),
    )
    await until(() => /reload \(file changed\) rejected/.test(gateway!.stderr()), "the rejection")
    expect(gateway.stderr()).toMatch(
      /rejected, still serving the previous configuration: configuration error: .*toolplane\.toml:line \d+: backends\[1\]\.name/,
    )
    expect(textOf(await client.callTool({ name: "notes.echo", arguments: { message: "still" } }))).toBe(
      "notes echo: still",
    )
    expect(textOf(await client.callTool({ name: "slow.wait", arguments: { n: 7, ms: 1 } }))).toBe("waited 7")
    await client.close()
  }, 60_000)
})
