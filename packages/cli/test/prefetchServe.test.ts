/**
 * Speculative prefetch through `toolplane serve` (a real subprocess over stdio) fronting an MCP backend
 * (a real subprocess, the official SDK server in fixtures/prefetchServer.ts), with `[prefetch]` on: after
 * the gateway has seen `search` followed by `fetch` of the id it found, it fetches the next search's
 * document before the client asks, and serves the client's `fetch` from that result.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Connected, connectStdio, FIXTURES, TSX, textOf } from "./helpers/processes.js"

const dir = mkdtempSync(join(tmpdir(), "toolplane-prefetch-"))
const config = join(dir, "gateway.toml")
writeFileSync(
  config,
  [
    "[[backends]]",
    'name = "docs"',
    `mcp = { command = ${JSON.stringify(TSX)}, args = [${JSON.stringify(join(FIXTURES, "prefetchServer.ts"))}] }`,
    "require_approval = false",
    // The server's own readOnlyHint counts only because the operator says so.
    "trust_annotations = true",
    "",
    "[prefetch]",
    "enabled = true",
    "",
  ].join("\n"),
)

describe("toolplane serve with [prefetch] over an MCP backend", () => {
  let gw: Connected

  beforeAll(async () => {
    gw = await connectStdio(config)
  }, 60_000)

  afterAll(async () => {
    await gw?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const executions = async (): Promise<{ search: number; fetch: number }> =>
    JSON.parse(textOf(await gw.client.callTool({ name: "docs.executions", arguments: {} })))

  const waitFor = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100; i++) {
      if (await check()) return true
      await new Promise((r) => setTimeout(r, 20))
    }
    return false
  }

  it("serves the client's follow-up call from a prefetch (a hit)", async () => {
    // The pattern, twice: search, then fetch of the id the search returned.
    for (const topic of ["alpha", "beta"]) {
      await gw.client.callTool({ name: "docs.search", arguments: { topic } })
      const doc = await gw.client.callTool({ name: "docs.fetch", arguments: { id: `doc-${topic}` } })
      expect(textOf(doc)).toBe(`contents of doc-${topic}`)
    }
    expect(await executions()).toEqual({ search: 2, fetch: 2 })

    await gw.client.callTool({ name: "docs.search", arguments: { topic: "gamma" } })
    // The gateway fetches doc-gamma on its own, before the client asks for it...
    expect(await waitFor(async () => (await executions()).fetch === 3)).toBe(true)
    // ...and the client's fetch is served from that result: the backend does not run it again.
    const doc = await gw.client.callTool({ name: "docs.fetch", arguments: { id: "doc-gamma" } })
    expect(textOf(doc)).toBe("contents of doc-gamma")
    expect(doc.isError).toBeFalsy()
    expect(await executions()).toEqual({ search: 3, fetch: 3 })
    // A call that was not predicted runs for real.
    const other = await gw.client.callTool({ name: "docs.fetch", arguments: { id: "doc-delta" } })
    expect(textOf(other)).toBe("contents of doc-delta")
    expect(await executions()).toEqual({ search: 3, fetch: 4 })
  }, 60_000)
})
