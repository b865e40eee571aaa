/**
 * What a user installs: every published package's manifest is complete and consistent. Versions are real
 * semver with a changelog once released, `engines` starts at Node 22 (the minimum the packages are tested
 * on) with no upper bound, the entry points exist in `exports` with types, and every peer dependency range admits the version
 * the package's own tests run against (so a range never claims a version nobody tested below it while
 * excluding the one we did).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import semver from "semver"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")

interface Manifest {
  name: string
  version: string
  private?: boolean
  license?: string
  type?: string
  engines?: { node?: string }
  exports?: Record<string, Record<string, string>>
  files?: string[]
  publishConfig?: { access?: string }
  peerDependencies?: Record<string, string>
  dependencies?: Record<string, string>
}

const published = ["packages", "plugins"].flatMap((group) =>
  readdirSync(join(ROOT, group))
    .map((name) => join(ROOT, group, name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({
      dir,
      manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest,
    }))
    .filter(({ manifest }) => manifest.private !== true),
)

describe("published package manifests", () => {
  it("finds the published packages", () => {
    expect(published.map((p) => p.manifest.name)).toContain("@toolplane/foundation")
    expect(published.length).toBeGreaterThanOrEqual(14)
  })

  for (const { dir, manifest } of published) {
    describe(manifest.name, () => {
      it("is an ESM package for Node >= 22 with public access, MIT", () => {
        expect(semver.valid(manifest.version), "version").not.toBeNull()
        // Node 22 is the minimum; a package may need a later 22.x (durable: `node:sqlite` without a flag).
        const minimum = semver.minVersion(manifest.engines?.node ?? "*")
        expect(minimum?.major, `engines.node ${manifest.engines?.node}`).toBe(22)
        expect(semver.satisfies("26.0.0", manifest.engines?.node ?? ""), "admits Node 26").toBe(true)
        expect(manifest.type).toBe("module")
        expect(manifest.license).toBe("MIT")
        expect(manifest.publishConfig?.access).toBe("public")
        expect(manifest.files).toContain("dist")
      })

      it("has a changelog once it has a released version", () => {
        if (manifest.version === "0.0.0") return
        expect(existsSync(join(dir, "CHANGELOG.md"))).toBe(true)
        expect(readFileSync(join(dir, "CHANGELOG.md"), "utf8")).toContain(`## ${manifest.version}`)
      })

      it("exports typed ESM entry points", () => {
        for (const [entry, conditions] of Object.entries(manifest.exports ?? {})) {
          if (typeof conditions !== "object") continue
          expect(conditions.types, `${entry} types`).toMatch(/^\.\/dist\/.*\.d\.ts$/)
          expect(conditions.import, `${entry} import`).toMatch(/^\.\/dist\/.*\.js$/)
        }
      })

      it("admits, in every peer dependency range, the version its tests run against", () => {
        const require = createRequire(join(dir, "package.json"))
        for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
          let installed: string | undefined
          try {
            installed = JSON.parse(readFileSync(require.resolve(`${peer}/package.json`), "utf8")).version
          } catch {
            // A peer not installed for tests (no package.json export): its range is not checked here.
          }
          if (installed === undefined) continue
          expect(
            semver.satisfies(installed, range, { includePrerelease: true }),
            `${peer}@${installed} in ${range}`,
          ).toBe(true)
        }
      })
    })
  }
})
