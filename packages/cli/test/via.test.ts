/**
 * `--via URL`: `list`, `search` and `call` against a running `toolplane serve --transport http` (a real
 * subprocess with a bearer token) instead of starting the backends, with no configuration file.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"
import { type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const TOKEN = "via-test-token-0123456789abcdef"
const dir = mkdtempSync(join(tmpdir(), "toolplane-via-"))
const config = join(dir, "toolplane.toml")
writeFileSync(
  config,
  `[server.auth]\ntokens = [{ env = "VIA_TEST_TOKEN", client = "cli" }]\n\n[[backends]]\nname = "local"\nmodule = "${join(import.meta.dirname, "fixtures", "tools.ts")}"\n`,
)

const cli = async (argv: string[]) => {
  let stdout = ""
  let stderr = ""
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: { ...process.env, VIA_TEST_TOKEN: TOKEN },
    // No toolplane.toml here: --via needs none.
    cwd: dir.replace(/\/[^/]*$/, ""),
  }
  const code = await run(argv, io)
  return { code, stdout, stderr }
}

let gateway: HttpGateway
beforeAll(async () => {
  gateway = await startHttpGateway(config, { env: { VIA_TEST_TOKEN: TOKEN } })
}, 60_000)
afterAll(() => stopAllGateways())

describe("--via a running gateway", () => {
  const via = () => ["--via", gateway.url.href, "--token-env", "VIA_TEST_TOKEN"]

  it("lists, searches and calls the gateway's tools by their ids, starting no backend", async () => {
    const list = await cli(["list", "--json", ...via()])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stderr).not.toMatch(/connecting/)
    const ids = JSON.parse(list.stdout).tools.map((t: { id: string }) => t.id)
    expect(ids).toContain("math/divide")
    expect(ids).toContain("notes/echo")

    const search = await cli(["search", "divide a by b", "--json", ...via()])
    expect(search.code).toBe(0)
    expect(JSON.parse(search.stdout).hits[0].id).toBe("math/divide")

    const call = await cli(["call", "math/divide", "--args", '{"a":6,"b":3}', ...via()])
    expect(call.code, call.stderr).toBe(0)
    expect(call.stdout).toContain('"quotient":2')
    // The same output as the command starting the backends itself.
    const local = await cli(["call", "math/divide", "--args", '{"a":6,"b":3}', "-c", config])
    expect(call.stdout).toBe(local.stdout)
  })

  it("keeps the exit codes: a tool error is 1, an unknown tool and rejected arguments are 2", async () => {
    expect((await cli(["call", "math/divide", "--args", '{"a":1,"b":0}', ...via()])).code).toBe(1)
    const unknown = await cli(["call", "math/dvide", ...via()])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/ToolNotFound/)
    const invalid = await cli(["call", "math/divide", "--args", '{"a":"x"}', ...via()])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toMatch(/InvalidArguments/)
  })

  it("names a missing token variable and a refused token", async () => {
    const unset = await cli(["list", "--via", gateway.url.href, "--token-env", "NOT_SET_ANYWHERE_XYZ"])
    expect(unset.code).toBe(2)
    expect(unset.stderr).toMatch(/--token-env NOT_SET_ANYWHERE_XYZ: the variable is not set/)
    const refused = await cli(["list", "--via", gateway.url.href])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/401|nauthorized|unavailable/i)
  })
})
