/**
 * Inspection commands with a backend down, connect errors that say why, and the environment a stdio
 * server gets (`env_passthrough`). Real subprocesses: a missing command, a server that exits, one that
 * never answers, and server-everything reporting its environment.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"

const tools = join(import.meta.dirname, "fixtures", "tools.ts")
const everything = join(import.meta.dirname, "..", "node_modules", ".bin", "mcp-server-everything")

const cli = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  let stdout = ""
  let stderr = ""
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "test-secret-0123456789abcdef0123456789", ...env },
    cwd: process.cwd(),
  }
  const code = await run(argv, io)
  return { code, stdout, stderr }
}

const tempConfig = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-down-"))
  const file = join(dir, "toolplane.toml")
  writeFileSync(file, text)
  return file
}

const withGhost = tempConfig(
  `[[backends]]\nname = "local"\nmodule = "${tools}"\n\n[[backends]]\nname = "ghost"\nmcp = { command = "definitely-not-a-command-xyz" }\n`,
)

describe("inspection commands with a backend down", () => {
  it("list, search and export show the healthy backends' tools and name the one that is down", async () => {
    for (const argv of [["list"], ["search", "divide a by b"], ["export"]]) {
      const { code, stdout, stderr } = await cli([...argv, "-c", withGhost])
      expect(code, `${argv[0]}: ${stderr}`).toBe(0)
      expect(stdout).toContain(argv[0] === "export" ? "math.divide" : "math/divide")
      expect(stderr).toMatch(/warning: ghost is down; showing the other backends' tools only/)
    }
  })

  it("call runs a healthy backend's tool, and names the down backend for one of its tools", async () => {
    const ok = await cli(["call", "math/divide", "--args", '{"a":6,"b":3}', "-c", withGhost])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain("2")
    const down = await cli(["call", "ghost/anything", "-c", withGhost])
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(
      /BackendUnavailable: Backend "ghost" is unavailable: command "definitely-not-a-command-xyz" not found/,
    )
  })
})

describe("a backend's connect error states the likely cause", () => {
  it("names a missing command, an exit with its code and stderr, and a timeout with what to try", async () => {
    const file = tempConfig(
      [
        "[limits]\nconnect_timeout_ms = 800\n",
        '[[backends]]\nname = "ghost"\nmcp = { command = "definitely-not-a-command-xyz" }\n',
        `[[backends]]\nname = "crash"\nmcp = { command = "sh", args = ["-c", "echo 'Error: cannot find module foo' >&2; exit 3"] }\n`,
        '[[backends]]\nname = "mute"\nmcp = { command = "sh", args = ["-c", "exec sleep 5"] }\n',
      ].join("\n"),
    )
    const { code, stdout, stderr } = await cli(["check", "--json", "-c", file])
    expect(code).toBe(1)
    const errors = Object.fromEntries(
      JSON.parse(stdout).backends.map((b: { backend: string; error: string }) => [b.backend, b.error]),
    )
    expect(errors.ghost).toMatch(/command "definitely-not-a-command-xyz" not found .*PATH/)
    expect(errors.crash).toMatch(
      /the server exited before answering initialize \(code 3\); the end of its stderr: Error: cannot find module foo/,
    )
    expect(errors.mute).toMatch(
      /no answer to initialize within 800 ms.*limits\.connect_timeout_ms.*env_passthrough/,
    )
    expect(stderr).toContain("crash failed")
  })
})

describe("env_passthrough", () => {
  const serverEnv = async (passthrough: string) => {
    const file = tempConfig(
      `[[backends]]\nname = "everything"\nrequire_approval = false\nmcp = { command = "${everything}", args = ["stdio"]${passthrough} }\n`,
    )
    const { code, stdout, stderr } = await cli(["call", "everything/get-env", "-c", file], {
      NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/corporate.pem",
      npm_config_registry: "https://registry.example.test/",
      TOOLPLANE_SECRET_NOT_PASSED: "hidden",
    })
    expect(code, stderr).toBe(0)
    return stdout
  }

  it("passes only the named variables (and prefixes) to a stdio server", async () => {
    const passed = await serverEnv(', env_passthrough = ["NODE_EXTRA_CA_CERTS", "npm_config_*"]')
    expect(passed).toContain("/etc/ssl/certs/corporate.pem")
    expect(passed).toContain("https://registry.example.test/")
    expect(passed).not.toContain("hidden")
    const none = await serverEnv("")
    expect(none).not.toContain("corporate.pem")
  })
})
