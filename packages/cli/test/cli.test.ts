import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "./helpers/runCli.js"

const fixture = join(import.meta.dirname, "fixtures", "gateway.toml")
const secret = { TOOLPLANE_CURSOR_SECRET: "test-secret-0123456789abcdef0123456789" }

const cli = (argv: string[], env: NodeJS.ProcessEnv = secret) =>
  runCli(argv, { env: { ...process.env, ...env } })

const tempConfig = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-cli-"))
  const file = join(dir, "toolplane.toml")
  writeFileSync(file, text)
  return file
}

describe("toolplane CLI: usage and configuration errors exit 2 and name the problem", () => {
  it.each([
    [["frobnicate"], /unknown command "frobnicate"/],
    [[], /missing command/],
    [["list", "--colour"], /Unknown option '--colour'/],
    [["search", "-c", fixture], /search needs a QUERY/],
    [["search", "x", "--limit", "zero", "-c", fixture], /--limit must be an integer/],
    [["call", "-c", fixture], /call needs a TOOL_ID/],
    [["call", "notes/echo", "--args", "{nope", "-c", fixture], /--args is not valid JSON/],
    [["call", "notes/echo", "--args", "[1]", "-c", fixture], /--args must be a JSON object/],
    [["export", "--format", "yaml", "-c", fixture], /--format must be "mcp" or "openai"/],
    [["serve", "--transport", "pigeon", "-c", fixture], /--transport must be "stdio" or "http"/],
    [["list", "extra", "-c", fixture], /unexpected argument "extra" for list/],
    [["serve", "--json", "-c", fixture], /--json does not apply to serve/],
    [["serve", "--port", "0x1F90", "-c", fixture], /--port must be an integer/],
    [["serve", "--port", "", "-c", fixture], /--port must be an integer/],
    [["search", "x", "--limit", "1e1", "-c", fixture], /--limit must be an integer/],
  ])("%j", async (argv, message) => {
    const { code, stderr } = await cli(argv)
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
  })

  it("accepts `help` as a command", async () => {
    const { code, stdout } = await cli(["help"])
    expect(code).toBe(0)
    expect(stdout).toContain("Usage: toolplane")
  })

  it("rejects an MCP URL that is not http(s) with the key and line", async () => {
    const file = tempConfig('[[backends]]\nname = "x"\nmcp = { url = "ftp://example.com/mcp" }\n')
    const { code, stderr } = await cli(["check", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}:line 3: backends[0].mcp.url: must be an http(s) URL`)
  })

  it("reads JSON configs without a .json extension", async () => {
    const file = tempConfig(JSON.stringify({ backends: [{ name: "x", mcp: { command: "" } }] }))
    const { code, stderr } = await cli(["check", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain("backends[0].mcp.command")
  })

  it("reports a port that is already taken as a usage error", async () => {
    const { createServer } = await import("node:net")
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const { code, stderr } = await cli([
        "serve",
        "--transport",
        "http",
        "--port",
        String(port),
        "-c",
        fixture,
      ])
      expect(code).toBe(2)
      expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: address already in use`)
    } finally {
      blocker.close()
    }
  })

  it("reports a missing config file", async () => {
    const { code, stderr } = await cli(["list", "-c", "/nonexistent/toolplane.toml"])
    expect(code).toBe(2)
    expect(stderr).toContain("/nonexistent/toolplane.toml: file not found")
  })

  it("reports a bad config with file, key and line", async () => {
    const file = tempConfig('[[backends]]\nname = "x"\nmcp = { command = "" }\n')
    const { code, stderr } = await cli(["check", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}:line 3: backends[0].mcp.command: must name the command to run`)
  })

  it("reports an unloadable module as a configuration error", async () => {
    const file = tempConfig('[[backends]]\nname = "x"\nmodule = "./missing.ts"\n')
    const { code, stderr } = await cli(["list", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toMatch(/backends\[0\]\.module: cannot load module/)
  })

  it("reports a composite naming an unknown tool", async () => {
    const file = tempConfig(
      `[[backends]]\nname = "x"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n\n[[composite_tools]]\nname = "all"\ntools = ["notes/echo", "nope/missing"]\n`,
    )
    const { code, stderr } = await cli(["list", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain("nope/missing")
    expect(stderr).toMatch(new RegExp(`${file}:line 7: composite_tools\\[0\\]`))
  })

  it("names the line of an alias whose tool does not exist", async () => {
    const file = tempConfig(
      `[[backends]]\nname = "x"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n\n[aliases]\n"nope/missing" = "a/b"\n`,
    )
    const { code, stderr } = await cli(["list", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}:line 6: aliases["nope/missing"]`)
  })
})

describe("toolplane CLI: a configuration with several problems", () => {
  const file = () =>
    tempConfig(["[server]", 'port = "x"', "", "[[backends]]", 'name = "a b"', "module = 5", ""].join("\n"))

  it("lists every problem with its line", async () => {
    const { code, stderr } = await cli(["list", "-c", file()])
    expect(code).toBe(2)
    expect(stderr).toMatch(/line 2: server\.port: .*expected number/)
    expect(stderr).toMatch(/line 5: backends\[0\]\.name: must be 1-64 letters/)
    expect(stderr).toMatch(/line 6: backends\[0\]\.module: .*expected string/)
    expect(stderr).not.toMatch(/more problem/)
  })

  it("check --json prints them as JSON", async () => {
    const { code, stdout } = await cli(["check", "--json", "-c", file()])
    expect(code).toBe(2)
    const report = JSON.parse(stdout) as { ok: boolean; errors: { path: string; line: number }[] }
    expect(report.ok).toBe(false)
    expect(report.errors.map((e) => [e.path, e.line])).toEqual([
      ["server.port", 2],
      ["backends[0].name", 5],
      ["backends[0].module", 6],
    ])
  })
})

describe("toolplane CLI against a real gateway (local module + server-everything)", () => {
  it("lists tools with filters, aliases and composites applied (table and JSON)", async () => {
    const table = await cli(["list", "-c", fixture])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/^TOOL\s+HINTS\s+DESCRIPTION/m)
    expect(table.stderr).toMatch(/connecting everything/)
    expect(table.stderr).toMatch(/everything ready \(\d+ tools/)
    const { code, stdout } = await cli(["list", "--json", "-c", fixture])
    expect(code).toBe(0)
    const ids: string[] = JSON.parse(stdout).tools.map((t: { id: string }) => t.id)
    expect(ids).toContain("math/add")
    expect(ids).not.toContain("everything/get-sum")
    expect(ids).toContain("composite/echo_all")
    expect(ids).toContain("notes/echo")
    expect(ids).not.toContain("notes/secret_admin")
    expect(ids).toEqual([...ids].sort())
  })

  it("calls tools: success 0, tool error 1, unknown tool and bad arguments 2", async () => {
    const ok = await cli(["call", "math/add", "--args", '{"a":2,"b":3}', "-c", fixture])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/5/)
    const json = await cli([
      "call",
      "composite/echo_all",
      "--args",
      '{"message":"hi"}',
      "--json",
      "-c",
      fixture,
    ])
    expect(json.code).toBe(0)
    const texts = JSON.parse(json.stdout)
      .content.map((c: { text?: string }) => c.text ?? "")
      .join("\n")
    expect(texts).toContain("notes echo: hi")
    expect(texts).toContain("Echo: hi")
    const toolError = await cli(["call", "math/divide", "--args", '{"a":1,"b":0}', "-c", fixture])
    expect(toolError.code).toBe(1)
    expect(toolError.stdout).toContain("division by zero")
    const unknown = await cli(["call", "notes/ecoh", "-c", fixture])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/ToolNotFound.*notes\/echo/)
    const hidden = await cli(["call", "notes/secret_admin", "-c", fixture])
    expect(hidden.code).toBe(2)
    const invalid = await cli(["call", "math/divide", "--args", '{"a":"x"}', "-c", fixture])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toMatch(/InvalidArguments.*\/a/)
  }, 60_000)

  it("searches", async () => {
    const { code, stdout } = await cli(["search", "divide a by b", "--json", "-c", fixture])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).hits[0].id).toBe("math/divide")
  })

  it("searches through the search tool when the gateway is in search mode", async () => {
    const file = tempConfig(
      `tool_exposure = "search"\n\n[[backends]]\nname = "local"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n`,
    )
    const { code, stdout } = await cli(["search", "divide a by b", "--json", "-c", file])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).hits[0].id).toBe("math/divide")
  })

  it("export without --json shows every tool's schemas", async () => {
    const { code, stdout } = await cli(["export", "-c", fixture])
    expect(code).toBe(0)
    expect(stdout).toMatch(
      /^math\.divide — Divides a by b\n {2}input: {2}\{.*"a":\{"type":"number"\}.*"required":\["a","b"\]/m,
    )
  })

  it("exports to MCP and OpenAI shapes", async () => {
    const mcp = JSON.parse((await cli(["export", "--format", "mcp", "--json", "-c", fixture])).stdout)
    expect(mcp.tools.map((t: { name: string }) => t.name)).toContain("math.add")
    const openai = await cli(["export", "--format", "openai", "--json", "-c", fixture])
    expect(openai.code).toBe(0)
    const names = JSON.parse(openai.stdout).tools.map((t: { function: { name: string } }) => t.function.name)
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })

  it("check reports health and tool counts, and a dead backend", async () => {
    const good = await cli(["check", "--json", "-c", fixture])
    expect(good.code).toBe(0)
    const report = JSON.parse(good.stdout)
    expect(report.ok).toBe(true)
    // server-everything's tool count depends on the capabilities the client declares: read what it served
    const served = Number(/everything ready \((\d+) tools/.exec(good.stderr)?.[1])
    expect(served).toBeGreaterThanOrEqual(13)
    expect(report.backends).toEqual([
      expect.objectContaining({ backend: "local", kind: "module", healthy: true, tools: 8 }),
      expect.objectContaining({ backend: "everything", kind: "mcp-stdio", healthy: true, tools: served }),
    ])
    const file = tempConfig(
      `[[backends]]\nname = "local"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n\n[[backends]]\nname = "ghost"\nmcp = { command = "definitely-not-a-command-xyz" }\n`,
    )
    const bad = await cli(["check", "-c", file])
    expect(bad.code).toBe(1)
    expect(bad.stderr).not.toMatch(/TOOLPLANE_CURSOR_SECRET is not set/)
    expect(bad.stdout).toMatch(/ghost\s+mcp-stdio\s+DOWN/)
    expect(bad.stdout).toMatch(/local\s+module\s+ok/)
  })

  it("check still reports health when a backend an alias or composite needs is down", async () => {
    const file = tempConfig(
      `[[backends]]\nname = "local"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n\n[[backends]]\nname = "everything"\nmcp = { command = "mcp-server-everythin" }\n\n[aliases]\n"everything/get-sum" = "math/add"\n\n[[composite_tools]]\nname = "all"\ntools = ["everything/echo", "notes/echo"]\n`,
    )
    const { code, stdout } = await cli(["check", "-c", file])
    expect(code).toBe(1)
    expect(stdout).toMatch(/everything\s+mcp-stdio\s+DOWN/)
    expect(stdout).toMatch(/local\s+module\s+ok/)
  })
})
