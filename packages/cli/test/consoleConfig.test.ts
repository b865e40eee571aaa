/**
 * `[console] path` is checked before anything listens: not with `listen`, not on stdio, not over the MCP
 * endpoint, and written as a path without a trailing slash. Each is exit 2 with a located message.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"
import { FIXTURES } from "./helpers/processes.js"

const dir = mkdtempSync(join(tmpdir(), "toolplane-console-config-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const serve = async (consoleToml: string, transport: "http" | "stdio") => {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.toml`)
  writeFileSync(
    file,
    `[console]\nenabled = true\n${consoleToml}\n\n[[backends]]\nname = "local"\nmodule = "${join(FIXTURES, "tools.ts")}"\n`,
  )
  let stderr = ""
  const io: CliIO = {
    stdout: () => {},
    stderr: (s) => {
      stderr += s
    },
    env: { ...process.env },
    cwd: dir,
  }
  const code = await run(["serve", "--transport", transport, "--port", "0", "-c", file], io)
  return { code, stderr }
}

describe("[console] path", () => {
  it.each([
    ['path = "/console"\nlisten = "127.0.0.1:0"', "http", /console: set listen or path, not both/],
    ['path = "/console"', "stdio", /console\.path: the console can be mounted on the HTTP server only/],
    ['path = "/console/"', "http", /console\.path: must be a path starting with "\/", not ending with "\/"/],
    ['path = "/mcp"', "http", /console\.path: \/mcp overlaps the MCP endpoint \/mcp/],
    ['path = "/metrics"\n\n[metrics]\npath = "/metrics"', "http", /console\.path: \/metrics is routed twice/],
  ] as const)("%s over %s is refused", async (toml, transport, message) => {
    const { code, stderr } = await serve(toml, transport)
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
  })
})
