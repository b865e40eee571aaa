/**
 * What a newcomer meets first: `--version`, per-command help with examples, "did you mean" for mistyped
 * commands, flags, configuration keys and values, and a readable refusal of an unsupported Node.js.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"

const PACKAGE = join(import.meta.dirname, "..")

const cli = async (argv: string[]) => {
  let stdout = ""
  let stderr = ""
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "test-secret-0123456789abcdef0123456789" },
    cwd: process.cwd(),
  }
  const code = await run(argv, io)
  return { code, stdout, stderr }
}

const tempConfig = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-help-"))
  const file = join(dir, "toolplane.toml")
  writeFileSync(file, text)
  return file
}

describe("toolplane --version and --help", () => {
  it("prints the package version with --version and -v", async () => {
    const { version } = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"))
    for (const flag of ["--version", "-v"]) {
      const { code, stdout, stderr } = await cli([flag])
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" })
    }
  })

  it("prints a command's own usage, flags and examples for `<command> --help` and `help <command>`", async () => {
    for (const argv of [
      ["serve", "--help"],
      ["help", "serve"],
      ["serve", "-h"],
    ]) {
      const { code, stdout } = await cli(argv)
      expect(code).toBe(0)
      expect(stdout).toMatch(/^Usage: toolplane serve \[options\]/)
      expect(stdout).toMatch(/^ {2}--transport stdio\|http\s+how clients connect/m)
      expect(stdout).toMatch(/^ {2}--require-all-backends\n? +fail the start/m)
      expect(stdout).toMatch(/^Examples:\n {2}toolplane serve/m)
      expect(stdout).not.toContain("Commands:")
    }
    const call = await cli(["call", "--help"])
    expect(call.stdout).toMatch(/^Usage: toolplane call TOOL_ID \[options\]/)
    expect(call.stdout).toMatch(/--args JSON +the arguments/)
  })

  it("lists every command with its summary apart from its synopsis", async () => {
    const { stdout } = await cli(["--help"])
    expect(stdout).not.toMatch(/rejectdurable/)
    const commands = stdout.slice(stdout.indexOf("Commands:"), stdout.indexOf("Options:"))
    for (const name of ["serve", "list", "search", "call", "export", "check", "runs"])
      expect(commands).toMatch(new RegExp(`^ {2}${name}\\b.*(?: {2}\\S|\\n {24}\\S)`, "m"))
    expect(stdout).toMatch(/-v, --version/)
  })

  it("suggests the closest command and flag", async () => {
    const command = await cli(["serv"])
    expect(command.code).toBe(2)
    expect(command.stderr).toMatch(/unknown command "serv"; did you mean "serve"\?/)
    const flag = await cli(["list", "--jsno"])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toMatch(/Unknown option '--jsno'; did you mean "--json"\?/)
  })

  it("shows the command's own usage after a usage mistake in it", async () => {
    const { code, stderr } = await cli(["call", "-c", join(import.meta.dirname, "fixtures", "gateway.toml")])
    expect(code).toBe(2)
    expect(stderr).toMatch(/call needs a TOOL_ID\n\nUsage: toolplane call TOOL_ID/)
  })
})

describe("configuration errors say what was probably meant", () => {
  it("suggests the known key for a mistyped one, at every level", async () => {
    const file = tempConfig(
      '[servr]\nname = "x"\n\n[[backends]]\nname = "x"\nmcp = { comand = "server" }\ntimeout_sm = 5\n',
    )
    const { code, stderr } = await cli(["check", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}:line 1: unknown key "servr"; did you mean "server"?`)
    expect(stderr).toContain(`line 6: backends[0].mcp: unknown key "comand"; did you mean "command"?`)
    expect(stderr).toContain(`line 7: backends[0]: unknown key "timeout_sm"; did you mean "timeout_ms"?`)
  })

  it("suggests the closest allowed value", async () => {
    const file = tempConfig(
      'tool_exposure = "serch"\n\n[[backends]]\nname = "x"\nmodule = "./m.ts"\napproval = "elcit"\n',
    )
    const { stderr } = await cli(["check", "-c", file])
    expect(stderr).toMatch(/line 1: tool_exposure: .*"all"\|"search"\|"code"; did you mean "search"\?/)
    expect(stderr).toMatch(/line 6: backends\[0\]\.approval: .*; did you mean "elicit"\?/)
  })

  it("says a stdio backend must name its command, as the README documents", async () => {
    const file = tempConfig('[[backends]]\nname = "x"\nmcp = { args = ["stdio"] }\n')
    const { code, stderr } = await cli(["check", "-c", file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}:line 3: backends[0].mcp.command: must name the command to run`)
    const documented = readFileSync(join(PACKAGE, "README.md"), "utf8")
    expect(documented).toMatch(/backends\[\d\]\.mcp\.command: must name the command to run/)
  })

  it("suggests nothing for a key that resembles no known one", async () => {
    const file = tempConfig('[[backends]]\nname = "x"\nmodule = "./m.ts"\nzzzzzzzz = 1\n')
    const { stderr } = await cli(["check", "-c", file])
    expect(stderr).toMatch(/unknown key "zzzzzzzz"\n/)
  })
})

/** The Node.js on the machine's default PATH (not the toolchain's): older than 22 on some machines. */
const systemNode = (() => {
  try {
    const path = execFileSync("/usr/bin/env", ["node", "--version"], {
      env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
      encoding: "utf8",
    })
    return { version: path.trim().replace(/^v/, "") }
  } catch {
    return undefined
  }
})()
const oldNode = systemNode !== undefined && Number.parseInt(systemNode.version, 10) < 22

describe("an unsupported Node.js", () => {
  it.skipIf(!oldNode)("is refused with the version needed, before anything needing Node 22 loads", () => {
    const tsx = join(PACKAGE, "..", "..", "node_modules", "tsx", "dist", "cli.mjs")
    const result = spawnSync(
      "/usr/bin/env",
      ["node", tsx, "--conditions=@toolplane/source", join(PACKAGE, "src", "main.ts"), "check"],
      { env: { PATH: "/usr/local/bin:/usr/bin:/bin" }, encoding: "utf8", cwd: tmpdir(), timeout: 15_000 },
    )
    expect(result.stderr).not.toContain("ERR_UNKNOWN_BUILTIN_MODULE")
    expect(result.stderr.trim()).toBe(`toolplane needs Node.js >= 22 (this is ${systemNode!.version})`)
    expect(result.status).toBe(1)
  })
})
