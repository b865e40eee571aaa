/**
 * A token's scopes bound every path to a tool, not only direct `tools/call`: `toolplane serve --transport
 * http` subprocesses with static tokens, in search mode (`search_tools`, `describe_tool`, `call_tool`) and
 * in code mode (the `execute_code` declaration and `tools.<ns>.<name>()`), with an alias and a composite
 * whose second target the caller may not call. Real MCP SDK clients over loopback.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways, textOf } from "./helpers/processes.js"

const TOKENS = {
  TP_TOKEN_PUB: "pub-token-0123456789abcdef",
  TP_TOKEN_ADMIN: "admin-token-0123456789abcdef",
}

/** A call's outcome: refused (a protocol error or an `isError` result) and its text. */
const outcome = async (call: Promise<unknown>): Promise<{ refused: boolean; text: string }> => {
  try {
    const result = (await call) as { isError?: boolean }
    return { refused: result.isError === true, text: textOf(result) }
  } catch (error) {
    return { refused: true, text: String((error as Error).message) }
  }
}

const connect = async (url: URL, token: string) => {
  const client = new Client({ name: "auth-paths-test", version: "1.0.0" })
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  )
  return client
}

/**
 * `pub` may use the meta-tools, `math/*`, the alias `pub/zero` (of `bulk/tool_0`) and the composite
 * `composite/both` (over `math/divide` and `notes/echo`), but not `notes/*` or the other `bulk/*` tools.
 */
const configText = (exposure: "search" | "code") =>
  [
    `tool_exposure = "${exposure}"`,
    "",
    "[aliases]",
    '"bulk/tool_0" = "pub/zero"',
    "",
    "[[composite_tools]]",
    'name = "both"',
    'tools = ["math/divide", "notes/echo"]',
    "",
    "[server]",
    "",
    "[server.auth]",
    'tokens = [{ env = "TP_TOKEN_PUB", client = "pub", scopes = ["pub"] }, { env = "TP_TOKEN_ADMIN", client = "ops", scopes = ["admin"] }]',
    "",
    "[server.auth.scopes.pub]",
    'tools = ["toolplane/*", "math/*", "pub/*", "composite/both"]',
    "",
    "[server.auth.scopes.admin]",
    'tools = ["re:.*"]',
    "",
    "[[backends]]",
    'name = "local"',
    `module = "${join(FIXTURES, "tools.ts")}"`,
    "require_approval = false",
    "",
  ].join("\n")

describe("scopes bound search mode, code mode, composites and aliases", () => {
  let dir: string
  let search: HttpGateway
  let code: HttpGateway

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-auth-paths-"))
    writeFileSync(join(dir, "search.toml"), configText("search"))
    writeFileSync(join(dir, "code.toml"), configText("code"))
    ;[search, code] = await Promise.all([
      startHttpGateway(join(dir, "search.toml"), { env: TOKENS }),
      startHttpGateway(join(dir, "code.toml"), { env: TOKENS }),
    ])
  }, 60_000)

  afterAll(async () => {
    await search?.stop()
    await code?.stop()
    await stopAllGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  const hitIds = async (client: Client, query: string) => {
    const found = await client.callTool({ name: "toolplane.search_tools", arguments: { query, limit: 50 } })
    expect(found.isError).toBeFalsy()
    return (found.structuredContent as { hits: { id: string }[] }).hits.map((h) => h.id)
  }

  it("search mode: search_tools and describe_tool show only granted tools", async () => {
    const pub = await connect(search.url, TOKENS.TP_TOKEN_PUB)
    try {
      expect((await pub.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "toolplane.call_tool",
        "toolplane.describe_tool",
        "toolplane.search_tools",
      ])
      const ids = [
        ...(await hitIds(pub, "echoes back the message")),
        ...(await hitIds(pub, "bulk demo tool number")),
        ...(await hitIds(pub, "must be hidden by the backend filter")),
        ...(await hitIds(pub, "divides a by b")),
      ]
      expect(ids).toContain("math/divide")
      expect(ids).toContain("pub/zero")
      expect(ids.filter((id) => id.startsWith("notes/") || id.startsWith("bulk/"))).toEqual([])
      const described = await outcome(
        pub.callTool({ name: "toolplane.describe_tool", arguments: { id: "notes/echo" } }),
      )
      expect(described.refused).toBe(true)
      expect(described.text).not.toContain("Echoes back")
    } finally {
      await pub.close()
    }
  })

  it("search mode: call_tool runs granted tools and aliases, and nothing else", async () => {
    const pub = await connect(search.url, TOKENS.TP_TOKEN_PUB)
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        pub.callTool({ name: "toolplane.call_tool", arguments: { id: name, arguments: args } })
      expect(textOf(await call("pub/zero", {}))).toContain("bulk 0")
      expect((await call("math/divide", { a: 6, b: 3 })).structuredContent).toEqual({ quotient: 2 })
      for (const [name, args] of [
        ["notes/echo", { message: "x" }],
        ["notes/secret_admin", {}],
        ["bulk/tool_1", {}],
        ["bulk/tool_0", {}],
      ] as const) {
        const refused = await outcome(call(name, args))
        expect(refused.refused, name).toBe(true)
        expect(refused.text, name).not.toMatch(/notes echo|leaked|bulk \d/)
      }
    } finally {
      await pub.close()
    }
  })

  it("an ungranted tool is refused exactly like one that does not exist, on every path", async () => {
    // Same text once the id is blanked out: no oracle for whether a hidden id exists.
    const shape = (text: string, id: string) => text.split(id).join("<id>")
    const hidden = "notes/echo"
    const absent = "notes/echoes"
    const pubSearch = await connect(search.url, TOKENS.TP_TOKEN_PUB)
    const pubCode = await connect(code.url, TOKENS.TP_TOKEN_PUB)
    try {
      const paths: [string, (id: string) => Promise<unknown>][] = [
        [
          "tools/call",
          (id) => pubSearch.callTool({ name: id.replace("/", "."), arguments: { message: "x" } }),
        ],
        [
          "call_tool",
          (id) =>
            pubSearch.callTool({
              name: "toolplane.call_tool",
              arguments: { id, arguments: { message: "x" } },
            }),
        ],
        ["describe_tool", (id) => pubSearch.callTool({ name: "toolplane.describe_tool", arguments: { id } })],
        [
          "execute_code",
          (id) =>
            pubCode.callTool({
              name: "toolplane.execute_code",
              arguments: {
                code: `try { await tools.${id.replace("/", ".")}({ message: "x" }) } catch (e) { return JSON.stringify([e.code, e.message, e.suggestions]) }`,
              },
            }),
        ],
      ]
      for (const [path, run] of paths) {
        const a = await outcome(run(hidden))
        const b = await outcome(run(absent))
        expect(a.text, path).toMatch(/not found|unknown tool|TOOL_NOT_FOUND/i)
        expect(shape(a.text, hidden).replace("notes.echo", "<id>"), path).toBe(
          shape(b.text, absent).replace("notes.echoes", "<id>"),
        )
      }
    } finally {
      await pubSearch.close()
      await pubCode.close()
    }
  })

  it("a composite's target needs its own grant", async () => {
    const pub = await connect(search.url, TOKENS.TP_TOKEN_PUB)
    try {
      const both = await pub.callTool({
        name: "toolplane.call_tool",
        arguments: { id: "composite/both", arguments: { a: 8, b: 2, message: "composite" } },
      })
      const results = (both.structuredContent as { results: { tool: string; ok: boolean }[] }).results
      expect(results).toEqual([
        expect.objectContaining({ tool: "math/divide", ok: true }),
        expect.objectContaining({ tool: "notes/echo", ok: false }),
      ])
      expect(textOf(both)).not.toContain("notes echo: composite")
    } finally {
      await pub.close()
    }
    // The same composite runs both targets for a caller granted both.
    const admin = await connect(search.url, TOKENS.TP_TOKEN_ADMIN)
    try {
      const both = await admin.callTool({
        name: "toolplane.call_tool",
        arguments: { id: "composite/both", arguments: { a: 8, b: 2, message: "composite" } },
      })
      expect(textOf(both)).toContain("notes echo: composite")
    } finally {
      await admin.close()
    }
  })

  it("code mode: the declaration and the program's calls stay within the grants", async () => {
    const pub = await connect(code.url, TOKENS.TP_TOKEN_PUB)
    try {
      const { tools } = await pub.listTools()
      expect(tools.map((t) => t.name)).toEqual(["toolplane.execute_code"])
      const declaration = tools[0]!.description ?? ""
      expect(declaration).toContain("divide(args")
      expect(declaration).toContain("zero(args")
      expect(declaration).not.toContain("echo(args")
      expect(declaration).not.toContain("secret_admin")
      expect(declaration).not.toContain("tool_1")
      const run = async (program: string) => {
        const result = await pub.callTool({ name: "toolplane.execute_code", arguments: { code: program } })
        return { result, text: textOf(result) }
      }
      const granted = await run("return [await tools.math.divide({ a: 9, b: 3 }), await tools.pub.zero({})]")
      expect(granted.result.isError).toBeFalsy()
      expect(granted.text).toContain("bulk 0")
      for (const program of [
        'return await tools.notes.echo({ message: "from code" })',
        'return await tools["notes"]["secret_admin"]({})',
        "return await tools.bulk.tool_0({})",
        'return await tools.composite.both({ a: 1, b: 1, message: "from code" })',
      ]) {
        const refused = await run(program)
        expect(refused.text, program).not.toMatch(/notes echo: from code|leaked|bulk 0/)
      }
      const searched = await run(
        'return (await tools.$search("echoes back the message", 20)).map((t) => t.id)',
      )
      expect(searched.result.isError).toBeFalsy()
      const found = (searched.result.structuredContent as { result: string[] }).result
      expect(found.filter((id) => id.startsWith("notes/") || id.startsWith("bulk/"))).toEqual([])
    } finally {
      await pub.close()
    }
    const admin = await connect(code.url, TOKENS.TP_TOKEN_ADMIN)
    try {
      const echoed = await admin.callTool({
        name: "toolplane.execute_code",
        arguments: { code: 'return await tools.notes.echo({ message: "admin" })' },
      })
      expect(textOf(echoed)).toContain("notes echo: admin")
    } finally {
      await admin.close()
    }
  })
})
