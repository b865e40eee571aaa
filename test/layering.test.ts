/**
 * Enforces the layering of docs/architecture.md by reading every package's sources and manifest:
 * foundation imports no workspace package; compose never imports exec; nothing under packages/ imports a
 * plugin; plugins never import each other... unless declared below; and every cross-package import goes
 * through the package name (its public `src/index.ts`), never into another package's files.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..")

interface Pkg {
  readonly dir: string
  readonly name: string
  readonly layer: "packages" | "plugins" | "examples"
}

const workspacePackages = (): Pkg[] =>
  (["packages", "plugins", "examples"] as const).flatMap((layer) => {
    const base = join(root, layer)
    let entries: string[] = []
    try {
      entries = readdirSync(base)
    } catch {
      return []
    }
    return entries
      .filter((d) => {
        try {
          return statSync(join(base, d, "package.json")).isFile()
        } catch {
          return false
        }
      })
      .map((d) => ({
        dir: join(base, d),
        name: JSON.parse(readFileSync(join(base, d, "package.json"), "utf8")).name as string,
        layer,
      }))
  })

const sourceFiles = (dir: string): string[] => {
  const out: string[] = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue
      const p = join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !/^(tsup|vitest)\.config\./.test(entry.name))
        out.push(p)
    }
  }
  walk(dir)
  return out
}

const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g

const importsOf = (file: string): string[] => {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
  const found: string[] = []
  for (const m of text.matchAll(IMPORT_RE)) found.push((m[1] ?? m[2] ?? m[3])!)
  return found
}

/** Allowed workspace imports per package (anything not listed is forbidden). */
const ALLOWED: Record<string, readonly string[]> = {
  "@toolplane/foundation": [],
  "@toolplane/discovery": ["@toolplane/foundation"],
  "@toolplane/compose": ["@toolplane/foundation", "@toolplane/discovery"],
  "@toolplane/exec": ["@toolplane/foundation", "@toolplane/discovery"],
  // provider plugins: foundation in src/; exec only in their tests (the runner as a real tool service)
  "@toolplane/plugin-anthropic": ["@toolplane/foundation", "@toolplane/exec"],
  "@toolplane/plugin-gemini": ["@toolplane/foundation", "@toolplane/exec"],
}

/** Narrower rules for what a package's published `src/` may import (its tests may use the rest of ALLOWED). */
const SRC_ALLOWED: Record<string, readonly string[]> = {
  "@toolplane/plugin-anthropic": ["@toolplane/foundation"],
  "@toolplane/plugin-gemini": ["@toolplane/foundation"],
}

/** Packages at the top of the stack (the CLI assembles plugins into a gateway), exempt from "never a plugin". */
const TOP_LEVEL = new Set(["@toolplane/cli"])

const packages = workspacePackages()
const names = new Set(packages.map((p) => p.name))
const pluginNames = new Set(packages.filter((p) => p.layer === "plugins").map((p) => p.name))

const violations = (
  pkg: Pkg,
  files: readonly string[],
  imports: (file: string) => string[],
  known: { readonly names: ReadonlySet<string>; readonly plugins: ReadonlySet<string> } = {
    names,
    plugins: pluginNames,
  },
): string[] => {
  const problems: string[] = []
  for (const file of files) {
    const rel = relative(root, file)
    for (const spec of imports(file)) {
      const target = [...known.names].find((n) => spec === n || spec.startsWith(`${n}/`))
      if (target === undefined) {
        if (spec.startsWith(".")) {
          const resolved = join(file, "..", spec)
          if (!resolved.startsWith(pkg.dir))
            problems.push(`${rel}: relative import "${spec}" leaves the package`)
        }
        continue
      }
      if (target === pkg.name) continue
      const allowed = ALLOWED[pkg.name]
      if (pkg.layer === "packages" && !TOP_LEVEL.has(pkg.name) && known.plugins.has(target)) {
        problems.push(`${rel}: ${pkg.name} imports plugin ${target}`)
      } else if (allowed !== undefined && !allowed.includes(target)) {
        problems.push(`${rel}: ${pkg.name} may not import ${target}`)
      }
      const subpath = spec.slice(target.length)
      if (subpath !== "" && subpath !== "/testing") {
        problems.push(`${rel}: "${spec}" reaches into ${target}; import its public entry point`)
      }
    }
  }
  return problems
}

describe("layering", () => {
  it("finds the workspace packages", () => {
    expect(names.has("@toolplane/foundation")).toBe(true)
  })

  it.each(packages.map((p) => [p.name, p] as const))(
    "%s imports only what its layer allows",
    (_name, pkg) => {
      const files = sourceFiles(pkg.dir).filter((f) => !f.includes(`${pkg.dir}/node_modules`))
      expect(violations(pkg, files, importsOf)).toEqual([])
    },
  )

  it.each(packages.filter((p) => SRC_ALLOWED[p.name] !== undefined).map((p) => [p.name, p] as const))(
    "%s src/ imports only what its published code may use",
    (name, pkg) => {
      const src = sourceFiles(join(pkg.dir, "src"))
      const used = src.flatMap(importsOf).filter((spec) => spec.startsWith("@toolplane/"))
      expect(used.filter((spec) => !SRC_ALLOWED[name]!.includes(spec))).toEqual([])
      const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8"))
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
      expect(deps.filter((d) => names.has(d) && !SRC_ALLOWED[name]!.includes(d))).toEqual([])
    },
  )

  it.each(packages.map((p) => [p.name, p] as const))(
    "%s declares only allowed workspace dependencies",
    (_n, pkg) => {
      const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8"))
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
      const allowed = ALLOWED[pkg.name]
      for (const dep of deps.filter((d) => names.has(d))) {
        if (pkg.layer === "packages" && !TOP_LEVEL.has(pkg.name))
          expect(pluginNames.has(dep), `${pkg.name} depends on plugin ${dep}`).toBe(false)
        if (allowed !== undefined) expect(allowed, `${pkg.name} depends on ${dep}`).toContain(dep)
      }
    },
  )

  it("detects a forbidden import (the check can fail)", () => {
    const known = {
      names: new Set([
        "@toolplane/foundation",
        "@toolplane/exec",
        "@toolplane/compose",
        "@toolplane/plugin-mcp",
      ]),
      plugins: new Set(["@toolplane/plugin-mcp"]),
    }
    const pkg = (name: string, dir: string): Pkg => ({
      name,
      dir: join(root, "packages", dir),
      layer: "packages",
    })
    const compose = pkg("@toolplane/compose", "compose")
    const foundation = pkg("@toolplane/foundation", "foundation")
    const file = (p: Pkg) => [join(p.dir, "src", "a.ts")]
    expect(violations(compose, file(compose), () => ["@toolplane/exec"], known)).toHaveLength(1)
    expect(violations(compose, file(compose), () => ["@toolplane/plugin-mcp"], known)).toHaveLength(1)
    expect(
      violations(compose, file(compose), () => ["@toolplane/foundation/src/Tool.js"], known),
    ).toHaveLength(1)
    expect(
      violations(foundation, file(foundation), () => ["@toolplane/compose", "../../exec/src/x.js"], known),
    ).toHaveLength(2)
    expect(
      violations(compose, file(compose), () => ["@toolplane/foundation", "./b.js", "effect"], known),
    ).toEqual([])
  })
})
