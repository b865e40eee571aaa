/**
 * Typechecks every TypeScript example of the documentation: the ```ts blocks of each package README and
 * of docs/*.md, and the ```ts blocks under `@example` in each package's TSDoc. Each block becomes a file
 * in a `.doc-examples/` folder of the package it documents (so its imports resolve from that package's
 * node_modules, as a user's would), and one `tsc` run in strict mode checks them all. Errors are reported
 * at the line of the Markdown or TSDoc they come from. Run by `pnpm typecheck`; `--keep` leaves the
 * generated files in place for inspection.
 *
 * README blocks are checked as written: they must import what they use. A TSDoc example may be a
 * fragment: names it uses from its own package are imported for it, and free variables such as
 * `service` or `runner` are declared in scripts/docExamples.prelude.d.ts. A block whose info string
 * contains `no-check` (```ts no-check) is skipped.
 *
 * A complete program marked ```ts run is also executed, by scripts/packCheck.sh, in an app outside the
 * workspace with every package installed from its packed tarball; when a ```text block follows it, the
 * program's standard output must match that block (`...` in it matches any text). `--emit-runnable DIR`
 * writes those programs to DIR with a `manifest.json` for that script.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import ts from "typescript"

/** A TypeScript example found in the documentation. */
export interface DocExample {
  /** The file it comes from, relative to the repository root. */
  readonly source: string
  /** 1-based line in `source` of the example's first code line. */
  readonly line: number
  readonly code: string
  /** A TSDoc example (a fragment in its package's scope) or a Markdown block (a whole module). */
  readonly kind: "markdown" | "tsdoc"
  /** Marked ```ts run: a complete program that is executed, not only typechecked. */
  readonly run?: boolean
  /** The ```text block right after a runnable example: what the program prints. */
  readonly expected?: string
}

const FENCE_RE = /^(\s*)```(ts|typescript|tsx)\b([^\n]*)$/

/** The ```ts blocks of a Markdown text, without those marked `no-check`. */
export const markdownExamples = (source: string, text: string): DocExample[] => {
  const lines = text.split("\n")
  const out: DocExample[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_RE.exec(lines[i]!)
    if (open === null) continue
    const indent = open[1]!.length
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent))
    if (!open[3]!.includes("no-check")) {
      const run = /(^|\s)run(\s|$)/.test(open[3]!)
      let k = j + 1
      while (k < lines.length && lines[k]!.trim() === "") k++
      const expected: string[] = []
      if (run && /^\s*```text\s*$/.test(lines[k] ?? ""))
        for (k++; k < lines.length && !/^\s*```\s*$/.test(lines[k]!); k++)
          expected.push(lines[k]!.slice(indent))
      out.push({
        source,
        line: i + 2,
        code: body.join("\n"),
        kind: "markdown",
        ...(run ? { run, ...(expected.length > 0 ? { expected: expected.join("\n") } : {}) } : {}),
      })
    }
    i = j
  }
  return out
}

/** The bare module specifiers a program imports (`zod`, `@toolplane/exec`, `@scope/pkg/sub`). */
export const importedPackages = (code: string): string[] => {
  const names = new Set<string>()
  for (const m of code.matchAll(/^\s*import\s[^"']*?["']([^"'./][^"']*)["']/gm)) {
    const spec = m[1]!
    if (spec.startsWith("node:")) continue
    const parts = spec.split("/")
    names.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!)
  }
  return [...names].sort()
}

/** The Markdown documents whose examples are checked: package READMEs, the root README and docs/. */
const markdownDocuments = (root: string): string[] => [
  ...workspacePackages(root)
    .map((p) => join(p.dir, "README.md"))
    .filter((f) => existsSync(f)),
  join(root, "README.md"),
  ...(existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => join(root, "docs", f))
    : []),
]

/**
 * The complete programs of the documentation (```ts run blocks), with the output they must print.
 *
 * @since 0.3.0
 */
export const runnableExamples = (root: string): DocExample[] =>
  markdownDocuments(root)
    .filter((f) => existsSync(f) && statSync(f).isFile())
    .flatMap((f) => markdownExamples(relative(root, f), readFileSync(f, "utf8")))
    .filter((e) => e.run === true)

/**
 * Whether a program's output matches an example's ```text block: line ends and surrounding blank lines
 * are ignored, and `...` matches any text (within and across lines).
 *
 * @since 0.3.0
 */
export const outputMatches = (actual: string, expected: string): boolean => {
  const norm = (s: string) =>
    s
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n")
      .trim()
  const pattern = norm(expected)
    .split("...")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*?")
  return new RegExp(`^${pattern}$`).test(norm(actual))
}

/** The ```ts blocks that follow an `@example` tag in the doc comments of a TypeScript source. */
export const tsdocExamples = (source: string, text: string): DocExample[] => {
  const lines = text.split("\n")
  const out: DocExample[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\*\s*@example\b/.test(lines[i]!)) continue
    let k = i + 1
    while (k < lines.length && /^\s*\*\s*$/.test(lines[k]!)) k++
    const open = /^\s*\*\s?```(ts|typescript|tsx)?\b([^\n]*)$/.exec(lines[k] ?? "")
    if (open === null) continue
    const body: string[] = []
    let j = k + 1
    for (; j < lines.length && !/^\s*\*\s?```\s*$/.test(lines[j]!); j++)
      body.push(lines[j]!.replace(/^\s*\*( |$)/, ""))
    if (!open[2]!.includes("no-check"))
      out.push({ source, line: k + 2, code: body.join("\n"), kind: "tsdoc" })
    i = j
  }
  return out
}

/** Names a piece of code declares at its top level or imports. */
const declaredNames = (code: string): Set<string> => {
  const names = new Set<string>()
  const file = ts.createSourceFile("x.ts", code, ts.ScriptTarget.ES2023, false, ts.ScriptKind.TS)
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text)
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name)
  }
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause
      if (clause?.name) names.add(clause.name.text)
      const bindings = clause?.namedBindings
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text)
      else if (bindings) for (const el of bindings.elements) names.add(el.name.text)
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) bind(d.name)
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    )
      names.add(statement.name.text)
  }
  return names
}

/** A package's name and public exports (name → whether it is a type only). */
export interface PackageApi {
  readonly name: string
  readonly exports: ReadonlyMap<string, boolean>
}

/** Third-party names a TSDoc fragment may use without importing them, and where they come from. */
const THIRD_PARTY: Readonly<Record<string, string>> = {
  z: "zod",
  Effect: "effect",
  Layer: "effect",
  Schema: "effect",
  Client: "@modelcontextprotocol/sdk/client/index.js",
  McpServer: "@modelcontextprotocol/sdk/server/mcp.js",
  OpenAI: "openai",
  pipe: "effect",
}

/**
 * The module text of an example. A TSDoc fragment gets an import of every name it uses without declaring
 * or importing it that its own package exports (`own`), else another workspace package (`others`, in
 * order), else one of the third-party names above.
 */
export const exampleModule = (
  example: DocExample,
  own: PackageApi,
  others: readonly PackageApi[] = [],
): string => {
  const header = `// ${example.source}:${example.line} (generated by scripts/docExamples.ts)\n`
  if (example.kind === "markdown") return `${header}${example.code}\nexport {}\n`
  const declared = declaredNames(example.code)
  const used = new Set(example.code.match(/[A-Za-z_$][\w$]*/g) ?? [])
  const from = new Map<string, string[]>()
  for (const name of [...used].filter((n) => !declared.has(n)).sort()) {
    const source =
      [own, ...others].find((p) => p.exports.has(name))?.name ??
      (Object.hasOwn(THIRD_PARTY, name) ? THIRD_PARTY[name] : undefined)
    const typeOnly = [own, ...others].find((p) => p.exports.has(name))?.exports.get(name) === true
    if (source !== undefined)
      from.set(source, [...(from.get(source) ?? []), typeOnly ? `type ${name}` : name])
  }
  const imports = [...from].map(([source, names]) => `import { ${names.join(", ")} } from "${source}"; `)
  // the imports share the first line with the header so example lines keep a fixed offset
  return `${imports.join("")}${header}${example.code}\nexport {}\n`
}

/** Lines in a generated module before the example's first line. */
const OFFSET = 1

interface Pkg {
  readonly dir: string
  readonly name: string
}

const workspacePackages = (root: string): Pkg[] =>
  ["packages", "plugins", "examples"].flatMap((layer) => {
    const base = join(root, layer)
    if (!existsSync(base)) return []
    return readdirSync(base)
      .filter((d) => existsSync(join(base, d, "package.json")))
      .map((d) => ({
        dir: join(base, d),
        name: JSON.parse(readFileSync(join(base, d, "package.json"), "utf8")).name as string,
      }))
  })

const tsFiles = (dir: string): string[] => {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...tsFiles(p))
    else if (entry.name.endsWith(".ts")) out.push(p)
  }
  return out
}

/** The names a package's `src/index.ts` exports, each with whether it is a type only. */
const exportNames = (program: ts.Program, index: string): Map<string, boolean> => {
  const file = program.getSourceFile(index)
  const checker = program.getTypeChecker()
  const symbol = file && checker.getSymbolAtLocation(file)
  const out = new Map<string, boolean>()
  for (const s of symbol ? checker.getExportsOfModule(symbol) : []) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
    out.set(s.name, (target.flags & ts.SymbolFlags.Value) === 0)
  }
  return out
}

const GENERATED = ".doc-examples"

export interface CheckResult {
  readonly examples: number
  /** Diagnostics, each `source:line: message`. */
  readonly errors: readonly string[]
}

/**
 * Extracts every example under `root`, typechecks them in one program and maps the errors back.
 * `docsHost` is the package whose folder hosts the examples of root-level docs (its node_modules
 * resolves their imports).
 */
export const checkDocExamples = (
  root: string,
  options: {
    readonly keep?: boolean
    readonly docsHost?: string
    /** The placeholder declarations (default: scripts/docExamples.prelude.d.ts; `null` for none). */
    readonly prelude?: string | null
  } = {},
): CheckResult => {
  const packages = workspacePackages(root)
  const indexes = packages.map((p) => join(p.dir, "src", "index.ts")).filter((f) => existsSync(f))
  const base = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.base.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!
  const exportsProgram = ts.createProgram(indexes, { ...base.options, noEmit: true })
  const located = new Map<string, { source: string; line: number }>()
  const files: string[] = []
  const apis = packages.map((p) => ({
    name: p.name,
    exports: exportNames(exportsProgram, join(p.dir, "src", "index.ts")),
  }))
  const write = (pkg: Pkg, example: DocExample, n: number) => {
    const own = apis.find((a) => a.name === pkg.name)!
    const dir = join(pkg.dir, GENERATED)
    mkdirSync(dir, { recursive: true })
    const stem = example.source.replace(/[^A-Za-z0-9]+/g, "_")
    const file = join(dir, `${stem}_${example.line}_${n}.ts`)
    writeFileSync(
      file,
      exampleModule(
        example,
        own,
        apis.filter((a) => a !== own),
      ),
    )
    located.set(file, { source: example.source, line: example.line })
    files.push(file)
  }
  for (const pkg of packages) rmSync(join(pkg.dir, GENERATED), { recursive: true, force: true })
  let n = 0
  for (const pkg of packages) {
    const readme = join(pkg.dir, "README.md")
    if (existsSync(readme))
      for (const ex of markdownExamples(relative(root, readme), readFileSync(readme, "utf8")))
        write(pkg, ex, n++)
    for (const file of tsFiles(join(pkg.dir, "src")))
      for (const ex of tsdocExamples(relative(root, file), readFileSync(file, "utf8"))) write(pkg, ex, n++)
  }
  const host = packages.find((p) => p.name === (options.docsHost ?? "@toolplane/cli"))
  const rootDocs = [
    join(root, "README.md"),
    ...(existsSync(join(root, "docs"))
      ? readdirSync(join(root, "docs"))
          .filter((f) => f.endsWith(".md"))
          .map((f) => join(root, "docs", f))
      : []),
  ].filter((f) => existsSync(f) && statSync(f).isFile())
  for (const doc of rootDocs)
    for (const ex of markdownExamples(relative(root, doc), readFileSync(doc, "utf8"))) {
      if (host === undefined) throw new Error(`no package hosts the examples of ${relative(root, doc)}`)
      write(host, ex, n++)
    }

  const paths = Object.fromEntries(
    packages
      .filter((p) => existsSync(join(p.dir, "src", "index.ts")))
      .map((p) => [p.name, [join(p.dir, "src", "index.ts")]]),
  )
  const prelude =
    options.prelude === undefined
      ? join(dirname(fileURLToPath(import.meta.url)), "docExamples.prelude.d.ts")
      : options.prelude
  const program = ts.createProgram(prelude === null ? files : [...files, prelude], {
    ...base.options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    paths,
  })
  const errors: string[] = []
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n")
    const at = d.file && located.get(d.file.fileName)
    if (d.file && at && d.start !== undefined) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start)
      errors.push(`${at.source}:${at.line + line - OFFSET}: TS${d.code}: ${message}`)
    } else if (d.file) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0)
      errors.push(`${relative(root, d.file.fileName)}:${line + 1}: TS${d.code}: ${message}`)
    } else errors.push(`TS${d.code}: ${message}`)
  }
  if (!options.keep)
    for (const pkg of packages) rmSync(join(pkg.dir, GENERATED), { recursive: true, force: true })
  return { examples: files.length, errors }
}

/** Writes the runnable examples to `dir` as `<name>.ts` plus `manifest.json` (for scripts/packCheck.sh). */
const emitRunnable = (root: string, dir: string): void => {
  mkdirSync(dir, { recursive: true })
  const manifest = runnableExamples(root).map((example) => {
    const name = `${example.source.replace(/[^A-Za-z0-9]+/g, "_")}_${example.line}`
    writeFileSync(join(dir, `${name}.ts`), `${example.code}\nexport {}\n`)
    return {
      name,
      source: example.source,
      line: example.line,
      imports: importedPackages(example.code),
      ...(example.expected !== undefined ? { expected: example.expected } : {}),
    }
  })
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2))
  console.log(`doc examples: ${manifest.length} runnable programs written to ${dir}`)
}

/** Compares a program's output with its example's text block; exits 1 with both shown when they differ. */
const checkOutput = (manifestFile: string, name: string, outputFile: string): void => {
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { name: string; expected?: string }[]
  const example = manifest.find((e) => e.name === name)
  if (example === undefined) throw new Error(`no runnable example ${name} in ${manifestFile}`)
  const actual = readFileSync(outputFile, "utf8")
  if (example.expected !== undefined && !outputMatches(actual, example.expected)) {
    console.error(`expected:\n${example.expected}\nprinted:\n${actual}`)
    process.exitCode = 1
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "--check-output") {
  checkOutput(process.argv[3]!, process.argv[4]!, process.argv[5]!)
} else if (
  import.meta.url === pathToFileURL(process.argv[1] ?? "").href &&
  process.argv[2] === "--emit-runnable"
) {
  emitRunnable(join(dirname(fileURLToPath(import.meta.url)), ".."), process.argv[3] ?? ".doc-runnable")
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..")
  const started = performance.now()
  const { examples, errors } = checkDocExamples(root, { keep: process.argv.includes("--keep") })
  for (const e of errors) console.error(e)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`doc examples: ${examples} checked, ${errors.length} errors (${seconds} s)`)
  if (errors.length > 0) process.exitCode = 1
}
