/**
 * `@toolplane/foundation/fixtures` (definitionBackend, definitionService) loads without vitest, so a
 * program that is not a test (an example, a fixture process) can use it; `/testing` (the contract
 * suites) does import vitest. A real Node process with a resolve hook that refuses vitest tells them apart.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const PACKAGE = join(import.meta.dirname, "..")
const TSX = join(PACKAGE, "..", "..", "node_modules", "tsx", "dist", "esm", "index.mjs")

const load = (entry: string) => {
  const script = `
    import { registerHooks } from "node:module"
    registerHooks({
      resolve(specifier, context, next) {
        if (specifier === "vitest" || specifier.startsWith("vitest/")) throw new Error("loads vitest")
        return next(specifier, context)
      },
    })
    const mod = await import(${JSON.stringify(entry)})
    console.log(typeof mod.definitionBackend, typeof mod.definitionService)
  `
  return spawnSync(
    process.execPath,
    ["--conditions=@toolplane/source", "--import", TSX, "--input-type=module", "-e", script],
    { cwd: PACKAGE, encoding: "utf8", timeout: 15_000 },
  )
}

describe("@toolplane/foundation/fixtures", () => {
  it("serves definitionBackend and definitionService without loading vitest", () => {
    const fixtures = load("@toolplane/foundation/fixtures")
    expect(fixtures.stderr).toBe("")
    expect(fixtures.stdout.trim()).toBe("function function")
    const testing = load("@toolplane/foundation/testing")
    expect(testing.stderr).toContain("loads vitest")
  })
})
