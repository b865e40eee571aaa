/**
 * `[server.auth]` end to end: `toolplane serve --transport http` (a subprocess) with static bearer
 * tokens from environment variables whose scopes map to what each caller sees and may call (tools,
 * prompts, resources), and the refusal to serve a public address without authentication.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"
import { type SdkConformanceServer, startSdkConformanceServer } from "./fixtures/conformanceResources.js"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const TOKENS = {
  TP_TOKEN_MATH: "math-token-0123456789abcdef",
  TP_TOKEN_ADMIN: "admin-token-0123456789abcdef",
}

const connect = async (url: URL, token: string) => {
  const client = new Client({ name: "auth-test", version: "1.0.0" })
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  )
  return client
}

describe("toolplane serve with [server.auth]", () => {
  let dir: string
  let sdk: SdkConformanceServer
  let gateway: HttpGateway

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-auth-"))
    sdk = await startSdkConformanceServer()
    const config = join(dir, "toolplane.toml")
    writeFileSync(
      config,
      [
        "[server]",
        "",
        "[server.auth]",
        'tokens = [{ env = "TP_TOKEN_MATH", client = "calc", scopes = ["math"] }, { env = "TP_TOKEN_ADMIN", client = "ops", scopes = ["admin"] }]',
        "",
        "[server.auth.scopes.math]",
        'tools = ["math/*"]',
        "",
        "[server.auth.scopes.admin]",
        'tools = ["re:.*"]',
        'prompts = ["sdk/*"]',
        'resources = ["sdk"]',
        "",
        "[[backends]]",
        'name = "local"',
        `module = "${join(FIXTURES, "tools.ts")}"`,
        "require_approval = false",
        "",
        "[[backends]]",
        'name = "sdk"',
        `mcp = { url = "${sdk.url}" }`,
        "",
      ].join("\n"),
    )
    gateway = await startHttpGateway(config, { env: TOKENS })
  }, 60_000)

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    await sdk?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 20_000)

  it("answers 401 without a token and with an unknown one", async () => {
    for (const authorization of [undefined, "Bearer not-a-configured-token"]) {
      const res = await fetch(gateway.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      })
      expect(res.status).toBe(401)
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer .*resource_metadata="/)
    }
  })

  it("narrows listing and calls to what the token's scopes grant", async () => {
    const math = await connect(gateway.url, TOKENS.TP_TOKEN_MATH)
    expect((await math.listTools()).tools.map((t) => t.name)).toEqual(["math.divide"])
    expect(
      (await math.callTool({ name: "math.divide", arguments: { a: 6, b: 3 } })).structuredContent,
    ).toEqual({
      quotient: 2,
    })
    await expect(math.callTool({ name: "notes.echo", arguments: { message: "x" } })).rejects.toThrow(
      /^MCP error -32602: Unknown tool "notes\.echo"(; did you mean "math\.divide"\?)?$/,
    )
    expect((await math.listPrompts()).prompts).toEqual([])
    expect((await math.listResources()).resources).toEqual([])
    await expect(math.getPrompt({ name: "sdk.test_simple_prompt" })).rejects.toThrow(/Unknown prompt/)
    await expect(math.readResource({ uri: "test://static-text" })).rejects.toThrow(/Unknown resource/)
    await math.close()

    const admin = await connect(gateway.url, TOKENS.TP_TOKEN_ADMIN)
    const tools = (await admin.listTools()).tools.map((t) => t.name)
    expect(tools).toEqual(expect.arrayContaining(["math.divide", "notes.echo"]))
    expect((await admin.listPrompts()).prompts.map((p) => p.name)).toContain("sdk.test_simple_prompt")
    expect((await admin.readResource({ uri: "test://static-text" })).contents[0]).toMatchObject({
      text: "This is the content of the static text resource.",
    })
    await admin.close()
  })
})

describe("toolplane serve refuses a public address without authentication", () => {
  it("exits 2 and says how to configure authentication", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolplane-auth-"))
    const file = join(dir, "toolplane.toml")
    writeFileSync(file, `[[backends]]\nname = "local"\nmodule = "${join(FIXTURES, "tools.ts")}"\n`)
    let stderr = ""
    const io: CliIO = {
      stdout: () => {},
      stderr: (s) => {
        stderr += s
      },
      env: { ...process.env },
      cwd: dir,
    }
    const code = await run(
      ["serve", "--transport", "http", "--host", "0.0.0.0", "--port", "0", "-c", file],
      io,
    )
    expect(code).toBe(2)
    expect(stderr).toMatch(/refusing to serve 0\.0\.0\.0 \(not a loopback address\) without authentication/)
    expect(stderr).toMatch(/\[server\.auth\] with tokens = /)
    rmSync(dir, { recursive: true, force: true })
  })
})
