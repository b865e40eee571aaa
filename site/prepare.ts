/**
 * Prepares the documentation site's content: `docs/*.md` as guides, every published package's README as a
 * package page, and an API reference generated from the TSDoc of each package's public entry point
 * (TypeDoc with typedoc-plugin-markdown). Relative links are rewritten to site pages; a link to a file
 * that is not a page (a source file, a folder) keeps its text and loses the link, so VitePress's own
 * dead-link check only ever sees links between pages and fails the build on a broken one.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { dirname, join, posix, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Application, DeclarationReflection, ReflectionKind } from "typedoc"

const SITE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(SITE, "..")
const CONTENT = join(SITE, "content")

interface PackageInfo {
  readonly name: string
  readonly dir: string
  readonly slug: string
}

const publishedPackages = (): PackageInfo[] =>
  ["packages", "plugins"].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .filter((name) => existsSync(join(ROOT, group, name, "package.json")))
      .map((name) => {
        const dir = join(group, name)
        const manifest = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"))
        return {
          name: manifest.name as string,
          dir,
          slug: (manifest.name as string).replace("@toolplane/", ""),
          private: manifest.private === true,
        }
      })
      .filter((p) => !p.private),
  )

const packages = publishedPackages()
const guides = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"))

/** Repository path of a source document → its page on the site (without extension), if it has one. */
const pageOf = (repoPath: string): string | undefined => {
  const normal = posix.normalize(repoPath)
  if (normal === "README.md") return "/"
  if (normal.startsWith("docs/") && normal.endsWith(".md")) return `/guide/${normal.slice(5, -3)}`
  const pkg = packages.find(
    (p) => normal === `${p.dir}/README.md` || normal === p.dir || normal === `${p.dir}/`,
  )
  return pkg ? `/packages/${pkg.slug}` : undefined
}

/** Applies `rewrite` to every line of `markdown` outside fenced code blocks. */
const outsideCode = (markdown: string, rewrite: (line: string) => string): string => {
  let inFence = false
  return markdown
    .split("\n")
    .map((line) => {
      if (line.trimStart().startsWith("```")) inFence = !inFence
      return inFence ? line : rewrite(line)
    })
    .join("\n")
}

/** Rewrites the relative links of a document that lives at `repoPath` for the site. */
const rewriteLinks = (markdown: string, repoPath: string): string =>
  outsideCode(markdown, (line) =>
    line.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang: string, text: string, target: string) => {
      if (/^(https?:|mailto:|#)/.test(target)) return whole
      if (bang) {
        // An image beside a README is copied into the site's public folder under its repository path.
        const source = posix.join(posix.dirname(repoPath), target)
        if (!existsSync(join(ROOT, source))) return whole
        mkdirSync(dirname(join(CONTENT, "public", source)), { recursive: true })
        copyFileSync(join(ROOT, source), join(CONTENT, "public", source))
        return `![${text}](/${source})`
      }
      const [path = "", fragment] = target.split("#")
      const page = pageOf(posix.join(posix.dirname(repoPath), path))
      if (page === undefined) return text
      return `[${text}](${page}${fragment ? `#${fragment}` : ""})`
    }),
  )

/** Text VitePress would read as Vue template syntax outside code is escaped. */
const escapeVue = (markdown: string): string =>
  outsideCode(markdown, (line) => line.replace(/\{\{/g, "&#123;&#123;"))

const page = (repoPath: string, extraFrontmatter = ""): string => {
  const text = readFileSync(join(ROOT, repoPath), "utf8")
  const body = escapeVue(rewriteLinks(text, repoPath))
  return extraFrontmatter ? `---\n${extraFrontmatter}---\n\n${body}` : body
}

rmSync(CONTENT, { recursive: true, force: true })
mkdirSync(join(CONTENT, "guide"), { recursive: true })
mkdirSync(join(CONTENT, "packages"), { recursive: true })

writeFileSync(
  join(CONTENT, "index.md"),
  page(
    "README.md",
    [
      "layout: home",
      "hero:",
      "  name: Toolplane",
      "  text: Define agent tools once; gather, find, compose, export and run them safely.",
      "  actions:",
      "    - { theme: brand, text: Quick start, link: /packages/foundation }",
      "    - { theme: alt, text: Run the gateway, link: /packages/cli }",
      "    - { theme: alt, text: API reference, link: /api/ }",
      "",
    ].join("\n"),
  ),
)
for (const file of guides) writeFileSync(join(CONTENT, "guide", file), page(`docs/${file}`))
for (const pkg of packages)
  writeFileSync(join(CONTENT, "packages", `${pkg.slug}.md`), page(`${pkg.dir}/README.md`))

// The API reference, one module per published package.
const app = await Application.bootstrapWithPlugins({
  entryPoints: packages.map((p) => join(ROOT, p.dir, "src", "index.ts")),
  entryPointStrategy: "resolve",
  tsconfig: join(SITE, "tsconfig.json"),
  plugin: ["typedoc-plugin-markdown", "typedoc-vitepress-theme"],
  out: join(CONTENT, "api"),
  readme: "none",
  excludePrivate: true,
  excludeInternal: true,
  skipErrorChecking: true,
  disableSources: true,
  hideGenerator: true,
  logLevel: "Warn",
  // typedoc-plugin-markdown and the VitePress theme
  ...({
    docsRoot: CONTENT,
    entryFileName: "index",
    hidePageHeader: true,
    outputFileStrategy: "modules",
  } as object),
})
const project = await app.convert()
if (!project) throw new Error("TypeDoc could not convert the packages' entry points")
// Members inherited from other libraries (Effect's `Data.TaggedError` gives every error class dozens of
// `pipe` overloads) are theirs to document, not ours: a member whose chain of `inheritedFrom` ends outside
// this project is removed.
const foreign = (reflection: DeclarationReflection): boolean => {
  let current: DeclarationReflection | undefined = reflection
  for (let depth = 0; current?.inheritedFrom && depth < 20; depth++) {
    const next = current.inheritedFrom.reflection
    if (!(next instanceof DeclarationReflection)) return true
    current = next
  }
  return false
}
const inherited = project
  .getReflectionsByKind(ReflectionKind.ClassMember | ReflectionKind.Constructor)
  .filter((r): r is DeclarationReflection => r instanceof DeclarationReflection && foreign(r))
const removed = new Set<DeclarationReflection>(inherited)
for (const reflection of inherited) project.removeReflection(reflection)
for (const owner of project.getReflectionsByKind(ReflectionKind.ClassOrInterface)) {
  if (!(owner instanceof DeclarationReflection)) continue
  owner.children = owner.children?.filter((child) => !removed.has(child))
  for (const group of owner.groups ?? [])
    group.children = group.children.filter((c) => !removed.has(c as DeclarationReflection))
  for (const category of owner.categories ?? [])
    category.children = category.children.filter((c) => !removed.has(c as DeclarationReflection))
}
for (const child of project.children ?? []) {
  const pkg = packages.find(
    (p) => child.sources?.[0]?.fullFileName?.startsWith(join(ROOT, p.dir)) ?? child.name.includes(p.dir),
  )
  if (pkg) child.name = pkg.name
}
await app.generateOutputs(project)

const sidebar = {
  guides: guides.map((f) => ({
    text: titleOf(readFileSync(join(ROOT, "docs", f), "utf8"), f),
    link: `/guide/${f.slice(0, -3)}`,
  })),
  packages: packages.map((p) => ({ text: p.name, link: `/packages/${p.slug}` })),
}
writeFileSync(join(CONTENT, "sidebar.json"), `${JSON.stringify(sidebar, null, 2)}\n`)
cpSync(join(SITE, "public"), join(CONTENT, "public"), { recursive: true })
console.log(
  `site: ${guides.length} guides, ${packages.length} package pages, API reference in ${relative(ROOT, join(CONTENT, "api"))}`,
)

function titleOf(markdown: string, fallback: string): string {
  return /^# (.+)$/m.exec(markdown)?.[1] ?? fallback
}
