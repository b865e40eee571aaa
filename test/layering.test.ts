/**
 * Enforces the layering of docs/architecture.md by reading every package's sources and manifest:
 * foundation imports no workspace package; compose never imports exec; nothing under packages/ imports a
 * plugin; plugins never import each other... unless declared below; and every cross-package import goes
 * through the package name (its public `src/index.ts`), never into another package's files. The private
 * benchmark kit is used by `bench/` folders only and is never a dependency of a package. Inside a
 * package, relative imports form no cycle (type-only imports included: a cycle is a design knot either way).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
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
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue
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
  "@toolplane/bench-kit": [],
  // provider plugins: foundation in src/; exec and the private testkit only in their tests
  "@toolplane/plugin-anthropic": ["@toolplane/foundation", "@toolplane/exec", "@toolplane/testkit"],
  "@toolplane/plugin-gemini": ["@toolplane/foundation", "@toolplane/exec", "@toolplane/testkit"],
  // AI SDK / LangChain: foundation and the OpenAI plugin (names, failure texts) in src/; in their tests the
  // runner, the MCP plugin (real MCP servers) and the private testkit
  "@toolplane/plugin-ai-sdk": [
    "@toolplane/foundation",
    "@toolplane/plugin-openai",
    "@toolplane/exec",
    "@toolplane/plugin-mcp",
    "@toolplane/testkit",
  ],
  "@toolplane/plugin-langchain": [
    "@toolplane/foundation",
    "@toolplane/plugin-openai",
    "@toolplane/exec",
    "@toolplane/plugin-mcp",
    "@toolplane/testkit",
  ],
  "@toolplane/testkit": ["@toolplane/foundation", "@toolplane/exec"],
  // durable: foundation and compose in src/; exec (a real runner as the tool service) and the private
  // testkit (a throwaway PostgreSQL server) only in its tests
  "@toolplane/durable": [
    "@toolplane/foundation",
    "@toolplane/compose",
    "@toolplane/exec",
    "@toolplane/testkit",
  ],
}

/** Narrower rules for what a package's published `src/` may import (its tests may use the rest of ALLOWED). */
const SRC_ALLOWED: Record<string, readonly string[]> = {
  "@toolplane/plugin-anthropic": ["@toolplane/foundation"],
  "@toolplane/plugin-gemini": ["@toolplane/foundation"],
  "@toolplane/plugin-ai-sdk": ["@toolplane/foundation", "@toolplane/plugin-openai"],
  "@toolplane/plugin-langchain": ["@toolplane/foundation", "@toolplane/plugin-openai"],
  "@toolplane/durable": ["@toolplane/foundation", "@toolplane/compose"],
}

/** The private benchmark kit: importable from `bench/` folders only, a devDependency at most. */
const BENCH_KIT = "@toolplane/bench-kit"

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
      if (target === BENCH_KIT) {
        if (!file.startsWith(join(pkg.dir, "bench") + sep))
          problems.push(`${rel}: only bench/ folders may import ${BENCH_KIT}`)
        continue
      }
      const allowed = ALLOWED[pkg.name]
      if (pkg.layer === "packages" && !TOP_LEVEL.has(pkg.name) && known.plugins.has(target)) {
        problems.push(`${rel}: ${pkg.name} imports plugin ${target}`)
      } else if (allowed !== undefined && !allowed.includes(target)) {
        problems.push(`${rel}: ${pkg.name} may not import ${target}`)
      }
      const subpath = spec.slice(target.length)
      if (subpath !== "" && subpath !== "/testing" && subpath !== "/fixtures") {
        problems.push(`${rel}: "${spec}" reaches into ${target}; import its public entry point`)
      }
    }
  }
  return problems
}

/** Resolves a relative import specifier of `from` to a source file, or undefined when it names none. */
const resolveRelative = (from: string, spec: string): string | undefined => {
  const base = join(from, "..", spec)
  const candidates = [
    base,
    base.replace(/\.(m?)js$/, ".$1ts"),
    base.replace(/\.js$/, ".tsx"),
    `${base}.ts`,
    join(base, "index.ts"),
  ]
  return candidates.find((c) => /\.(ts|tsx|mts|js|mjs)$/.test(c) && existsSync(c))
}

/** The relative-import graph of a package's files: file -> files it imports. */
const importGraph = (files: readonly string[]): Map<string, string[]> => {
  const graph = new Map<string, string[]>()
  for (const file of files)
    graph.set(
      file,
      importsOf(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => resolveRelative(file, spec))
        .filter((target): target is string => target !== undefined),
    )
  return graph
}

/**
 * Every import cycle of a graph, one per strongly connected component with more than one node (or a
 * node importing itself), each as a path that starts and ends at the same node.
 */
const findCycles = (graph: ReadonlyMap<string, readonly string[]>): string[][] => {
  // Tarjan's strongly connected components, recursive (package graphs are small).
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (node: string) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let top: string
      do {
        top = stack.pop()!
        onStack.delete(top)
        component.push(top)
      } while (top !== node)
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component)
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  // Report each component as one concrete cycle: walk from its first node inside the component back to it.
  return components.map((component) => {
    const members = new Set(component)
    const start = [...component].sort()[0]!
    const previous = new Map<string, string>()
    const queue = [start]
    while (queue.length > 0) {
      const node = queue.shift()!
      for (const next of graph.get(node) ?? []) {
        if (!members.has(next)) continue
        if (next === start) {
          const path = [start]
          for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at))
            path.splice(1, 0, at)
          return [...path, start]
        }
        if (!previous.has(next)) {
          previous.set(next, node)
          queue.push(next)
        }
      }
    }
    return [...component, component[0]!]
  })
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
      expect(deps, `${pkg.name} depends on the private ${BENCH_KIT}`).not.toContain(BENCH_KIT)
      for (const dep of deps.filter((d) => names.has(d))) {
        if (pkg.layer === "packages" && !TOP_LEVEL.has(pkg.name))
          expect(pluginNames.has(dep), `${pkg.name} depends on plugin ${dep}`).toBe(false)
        if (allowed !== undefined) expect(allowed, `${pkg.name} depends on ${dep}`).toContain(dep)
      }
    },
  )

  it.each(packages.map((p) => [p.name, p] as const))(
    "%s has no import cycle between its files",
    (_name, pkg) => {
      const cycles = findCycles(importGraph(sourceFiles(pkg.dir)))
      expect(cycles.map((cycle) => cycle.map((f) => relative(pkg.dir, f)).join(" -> "))).toEqual([])
    },
  )

  it("keeps the benchmark kit private", () => {
    const kit = packages.find((p) => p.name === BENCH_KIT)
    expect(kit, `${BENCH_KIT} is a workspace package`).toBeDefined()
    expect(JSON.parse(readFileSync(join(kit!.dir, "package.json"), "utf8")).private).toBe(true)
  })

  it("lets bench/ folders, and only them, import the benchmark kit (the check can fail)", () => {
    const known = { names: new Set(["@toolplane/foundation", BENCH_KIT]), plugins: new Set<string>() }
    const foundation: Pkg = {
      name: "@toolplane/foundation",
      dir: join(root, "packages", "foundation"),
      layer: "packages",
    }
    const at = (...parts: string[]) => [join(foundation.dir, ...parts)]
    expect(violations(foundation, at("bench", "x.bench.ts"), () => [BENCH_KIT], known)).toEqual([])
    expect(violations(foundation, at("src", "x.ts"), () => [BENCH_KIT], known)).toHaveLength(1)
    expect(violations(foundation, at("test", "x.test.ts"), () => [BENCH_KIT], known)).toHaveLength(1)
  })

  it("finds import cycles (the check can fail)", () => {
    const graph = new Map<string, string[]>([
      ["cli.ts", ["commands/call.ts", "output.ts"]],
      ["commands/call.ts", ["cli.ts", "output.ts"]],
      ["output.ts", []],
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["self.ts", ["self.ts"]],
      ["dag.ts", ["output.ts", "a.ts"]],
    ])
    expect(
      findCycles(graph)
        .map((c) => c.join(" -> "))
        .sort(),
    ).toEqual(["a.ts -> b.ts -> c.ts -> a.ts", "cli.ts -> commands/call.ts -> cli.ts", "self.ts -> self.ts"])
    expect(
      findCycles(
        new Map([
          ["x.ts", ["y.ts"]],
          ["y.ts", []],
        ]),
      ),
    ).toEqual([])
  })

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
