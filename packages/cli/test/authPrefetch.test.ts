/**
 * Speculative prefetch never runs what nobody may ask for: a `toolplane serve --transport http` subprocess
 * with `[prefetch]` on and two static tokens of one client, fronting two instances of an MCP server
 * (fixtures/prefetchServer.ts, the official SDK) that count their executions.
 *
 * - An MCP server's own `readOnlyHint` is not trusted: without the operator's `read_only` (or
 *   `trust_annotations`), its tools are never prefetched.
 * - A prefetch runs with the scopes of the call that led to it: a token that may not call `docs/fetch`
 *   never gets it prefetched, even when a broader token of the same client taught the gateway the pattern.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  FIXTURES,
  type HttpGateway,
  startHttpGateway,
  stopAllGateways,
  TSX,
  textOf,
} from "./helpers/processes.js"

const TOKENS = {
  TP_TOKEN_WIDE: "wide-token-0123456789abcdef",
  TP_TOKEN_NARROW: "narrow-token-0123456789abcdef",
}

/** The fixture MCP server as backend `name`. */
const mcpBackendLines = (name: string, extra: string[]) => [
  "[[backends]]",
  `name = "${name}"`,
  `mcp = { command = ${JSON.stringify(TSX)}, args = [${JSON.stringify(join(FIXTURES, "prefetchServer.ts"))}] }`,
  "require_approval = false",
  ...extra,
  "",
]

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>

const executions = async (call: Call, backend = "docs"): Promise<{ search: number; fetch: number }> =>
  JSON.parse(textOf(await call(`${backend}.executions`, {})))

/** Teaches the gateway "search, then fetch the id it found" twice. */
const teach = async (call: Call, backend = "docs") => {
  for (const topic of ["alpha", "beta"]) {
    await call(`${backend}.search`, { topic })
    expect(textOf(await call(`${backend}.fetch`, { id: `doc-${topic}` }))).toBe(`contents of doc-${topic}`)
  }
}

describe("prefetch of MCP tools", () => {
  let dir: string
  let http: HttpGateway
  let wide: Client
  let narrow: Client

  const connect = async (token: string) => {
    const client = new Client({ name: "auth-prefetch-test", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(http.url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    return client
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-auth-prefetch-"))
    writeFileSync(
      join(dir, "scoped.toml"),
      [
        "[server]",
        "",
        "[server.auth]",
        'tokens = [{ env = "TP_TOKEN_WIDE", client = "c", scopes = ["wide"] }, { env = "TP_TOKEN_NARROW", client = "c", scopes = ["narrow"] }]',
        "",
        "[server.auth.scopes.wide]",
        'tools = ["docs/*", "raw/*"]',
        "",
        "[server.auth.scopes.narrow]",
        'tools = ["docs/search", "docs/executions"]',
        "",
        "[prefetch]",
        "enabled = true",
        "",
        // The operator declares docs' tools read-only; raw's say so only themselves.
        ...mcpBackendLines("docs", ['read_only = ["docs/*"]']),
        ...mcpBackendLines("raw", []),
      ].join("\n"),
    )
    http = await startHttpGateway(join(dir, "scoped.toml"), { env: TOKENS })
    wide = await connect(TOKENS.TP_TOKEN_WIDE)
    narrow = await connect(TOKENS.TP_TOKEN_NARROW)
  }, 60_000)

  afterAll(async () => {
    await wide?.close()
    await narrow?.close()
    await http?.stop()
    await stopAllGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  it("does not trust an MCP server's readOnlyHint: nothing is prefetched without the operator's word", async () => {
    const call: Call = (name, args) => wide.callTool({ name, arguments: args })
    await teach(call, "raw")
    expect(await executions(call, "raw")).toEqual({ search: 2, fetch: 2 })
    await call("raw.search", { topic: "gamma" })
    await sleep(600)
    expect(await executions(call, "raw")).toEqual({ search: 3, fetch: 2 })
  }, 30_000)

  it("runs a prefetch with the scopes of the call that led to it", async () => {
    const wideCall: Call = (name, args) => wide.callTool({ name, arguments: args })
    const narrowCall: Call = (name, args) => narrow.callTool({ name, arguments: args })
    await teach(wideCall)
    expect(await executions(wideCall)).toEqual({ search: 2, fetch: 2 })
    // The narrow token (same client) searches: the learned follow-up is a fetch it may not call.
    await narrowCall("docs.search", { topic: "gamma" })
    await sleep(600)
    expect(await executions(narrowCall)).toEqual({ search: 3, fetch: 2 })
    await expect(narrowCall("docs.fetch", { id: "doc-gamma" })).rejects.toThrow(/Unknown tool/)
    // The wide token, same pattern: its follow-up is prefetched and served.
    await wideCall("docs.search", { topic: "delta" })
    for (let i = 0; i < 50 && (await executions(wideCall)).fetch < 3; i++) await sleep(20)
    expect(await executions(wideCall)).toEqual({ search: 4, fetch: 3 })
    expect(textOf(await wideCall("docs.fetch", { id: "doc-delta" }))).toBe("contents of doc-delta")
    expect(await executions(wideCall)).toEqual({ search: 4, fetch: 3 })
  }, 30_000)
})
