/**
 * Counts the public exports of each package: every name its `src/index.ts` (and each other public
 * subpath of its `exports` map) makes importable, split into runtime values and type-only names, with
 * the TypeScript compiler API. Run: `pnpm tsx scripts/countExports.ts [--names]`.
 */
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const packages = [
  "packages/foundation",
  "packages/discovery",
  "packages/exec",
  "packages/compose",
  "packages/cli",
  "plugins/local",
  "plugins/mcp",
  "plugins/openai",
  "plugins/anthropic",
  "plugins/gemini",
]

interface Entry {
  readonly pkg: string
  readonly subpath: string
  readonly file: string
}

const entries: Entry[] = []
for (const dir of packages) {
  const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
    name: string
    exports: Record<string, Record<string, string>>
  }
  for (const [subpath, conditions] of Object.entries(manifest.exports)) {
    const source = conditions["@toolplane/source"]
    if (source === undefined) continue
    entries.push({ pkg: manifest.name, subpath, file: join(root, dir, source) })
  }
}

const config = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile).config
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root)
const program = ts.createProgram(
  entries.map((e) => e.file),
  { ...options, noEmit: true },
)
const checker = program.getTypeChecker()
const showNames = process.argv.includes("--names")

console.log("| package | subpath | runtime | type-only | total |")
console.log("| --- | --- | ---: | ---: | ---: |")
for (const entry of entries) {
  const sourceFile = program.getSourceFile(entry.file)
  if (!sourceFile) throw new Error(`not in program: ${entry.file}`)
  const symbol = checker.getSymbolAtLocation(sourceFile)
  const exported = symbol ? checker.getExportsOfModule(symbol) : []
  const runtime: string[] = []
  const types: string[] = []
  for (const s of exported) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
    const isValue = (target.flags & ts.SymbolFlags.Value) !== 0
    const typeOnly = s.declarations?.some(
      (d) =>
        (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) ||
        (ts.isExportDeclaration(d) && d.isTypeOnly),
    )
    ;(isValue && !typeOnly ? runtime : types).push(s.name)
  }
  console.log(
    `| ${entry.pkg} | ${entry.subpath} | ${runtime.length} | ${types.length} | ${runtime.length + types.length} |`,
  )
  if (showNames) console.log(`  runtime: ${runtime.sort().join(", ")}\n  types: ${types.sort().join(", ")}`)
}
