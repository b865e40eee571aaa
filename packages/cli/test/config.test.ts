import { ConfigError } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"

const fail = (source: string, file = "toolplane.toml"): ConfigError => {
  try {
    parseConfig(source, file)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error("expected a ConfigError")
}

const good = `
tool_exposure = "all"

[server]
transport = "http"
port = 9000

[[backends]]
name = "everything"
mcp = { command = "mcp-server-everything", args = ["stdio"] }
require_approval = false

[[backends]]
name = "local"
module = "./tools.ts"

[backends.filter]
deny = ["local/secret*"]

[aliases]
"everything/echo" = "demo/say"

[[composite_tools]]
name = "echo_all"
tools = ["everything/echo", "local/echo"]
`

describe("config", () => {
  it("parses a valid TOML config and applies defaults", () => {
    const config = parseConfig(good)
    expect(config.server).toMatchObject({ transport: "http", port: 9000, host: "127.0.0.1", page_size: 100 })
    expect(config.backends[0]).toMatchObject({
      name: "everything",
      require_approval: false,
      mcp: { command: "mcp-server-everything", args: ["stdio"], env: {} },
    })
    expect(config.backends[1]).toMatchObject({ module: "./tools.ts", filter: { deny: ["local/secret*"] } })
    expect(config.backends[1]!.require_approval).toBeUndefined()
    expect(config.aliases).toEqual({ "everything/echo": "demo/say" })
    expect(config.composite_tools[0]).toMatchObject({ name: "echo_all", strategy: "parallel" })
    expect(config.cursor.secret_env).toBe("TOOLPLANE_CURSOR_SECRET")
  })

  it("accepts JSON", () => {
    const config = parseConfig(JSON.stringify({ backends: [{ name: "x", module: "./m.js" }] }), "gw.json")
    expect(config.backends[0]!.name).toBe("x")
  })

  it("a backend's tasks: a boolean, omitted by default", () => {
    const mcp = '[[backends]]\nname = "t"\nmcp = { url = "http://127.0.0.1:1/mcp" }\n'
    expect(parseConfig(`${mcp}tasks = false`).backends[0]!.tasks).toBe(false)
    expect(parseConfig(mcp).backends[0]!.tasks).toBeUndefined()
    const e = fail(`${mcp}tasks = "no"`)
    expect(e.message).toMatch(/backends\[0\]\.tasks/)
  })

  it("names the file and line of a TOML syntax error", () => {
    const e = fail('[server]\nport = 80\nname = "unterminated\n', "conf/gw.toml")
    expect(e.file).toBe("conf/gw.toml")
    expect(e.line).toBe(3)
    expect(e.message).toMatch(/^conf\/gw\.toml:line 3: invalid TOML/)
  })

  it.each([
    ["missing backends", `tool_exposure = "all"`, "backends", undefined, /expected array|at least one/i],
    [
      "unknown top-level key",
      `backend = []\n[[backends]]\nname = "a"\nmodule = "m.js"`,
      "",
      1,
      /unknown key "backend"/,
    ],
    [
      "bad mcp command",
      `[[backends]]\nname = "a"\nmodule = "m.js"\n\n[[backends]]\nname = "b"\nmcp = { command = "" }`,
      "backends[1].mcp.command",
      7,
      /name the command/,
    ],
    [
      "neither module nor mcp",
      `[[backends]]\nname = "a"\n\n[[backends]]\nname = "b"\nmodule = "x"`,
      "backends[0]",
      1,
      /one of "module" or "mcp"/,
    ],
    [
      "bad backend name",
      `[[backends]]\nname = "has space"\nmodule = "m.js"`,
      "backends[0].name",
      2,
      /letters, digits/,
    ],
    [
      "duplicate backend",
      `[[backends]]\nname = "a"\nmodule = "m.js"\n[[backends]]\nname = "a"\nmodule = "n.js"`,
      "backends[1].name",
      5,
      /duplicate backend name "a"/,
    ],
    [
      "composite without targets",
      `[[backends]]\nname = "a"\nmodule = "m.js"\n\n[[composite_tools]]\nname = "all"\ntools = []`,
      "composite_tools[0].tools",
      7,
      /at least one target/,
    ],
    [
      "bad alias target",
      `[[backends]]\nname = "a"\nmodule = "m.js"\n\n[aliases]\n"a/x" = "no-slash"`,
      'aliases["a/x"]',
      6,
      /tool id/,
    ],
    [
      "port out of range",
      `[server]\nport = 70000\n[[backends]]\nname = "a"\nmodule = "m.js"`,
      "server.port",
      2,
      /65535/,
    ],
    [
      "unknown key in a backend",
      `[[backends]]\nname = "a"\nmodule = "m.js"\ncomand = "x"`,
      "backends[0]",
      4,
      /unknown key "comand"/,
    ],
    [
      "bad transport",
      `[server]\ntransport = "carrier-pigeon"\n[[backends]]\nname = "a"\nmodule = "m.js"`,
      "server.transport",
      2,
      /stdio|http/,
    ],
  ])("%s → ConfigError with path and line", (_name, source, path, line, reason) => {
    const e = fail(source)
    expect(e.path).toBe(path)
    expect(e.line).toBe(line)
    expect(e.reason).toMatch(reason)
    expect(e.file).toBe("toolplane.toml")
  })
})
