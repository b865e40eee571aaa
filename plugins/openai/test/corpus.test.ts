/**
 * Strict conversion over real tool schemas listed by MCP servers from npm (test/fixtures, collected by
 * scripts/collect-corpus.ts), checked by an independent checker written from OpenAI's documented
 * strict-mode rules (it shares no code with src/strict.ts).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { makeTool, type Tool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { collectServer, SERVERS } from "../scripts/mcpServers.js"
import { toOpenAITools } from "../src/index.js"

interface Corpus {
  servers: {
    name: string
    packageName: string
    version: string
    tools: { name: string; inputSchema: Record<string, unknown> }[]
  }[]
}
const corpus = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "mcp-tool-corpus.json"), "utf8"),
) as Corpus

// ---- independent checker -------------------------------------------------------------------------
const ALLOWED_KEYS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "title",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
])
const ALLOWED_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
const ALLOWED_FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
])

/** Returns every violation of the strict-mode rules in `root`, as "path: problem". */
const strictViolations = (root: any): string[] => {
  const problems: string[] = []
  if (root?.type !== "object") problems.push(`root: type must be "object", got ${JSON.stringify(root?.type)}`)
  if (root?.anyOf !== undefined) problems.push("root: anyOf is not allowed at the root")
  let totalProps = 0
  let enumValues = 0
  const check = (node: any, path: string, depth: number) => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      problems.push(`${path}: not a schema object`)
      return
    }
    for (const key of Object.keys(node))
      if (!ALLOWED_KEYS.has(key)) problems.push(`${path}: keyword "${key}" is not supported`)
    if (node.$defs !== undefined && path !== "#") problems.push(`${path}: $defs only at the root`)
    const types: string[] = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type]
    for (const t of types) if (!ALLOWED_TYPES.has(t)) problems.push(`${path}: type "${t}" not supported`)
    if (
      types.length === 0 &&
      node.anyOf === undefined &&
      node.$ref === undefined &&
      node.enum === undefined &&
      !("const" in node)
    )
      problems.push(`${path}: no type, anyOf, $ref, enum or const`)
    if (node.format !== undefined && !ALLOWED_FORMATS.has(node.format))
      problems.push(`${path}: format "${node.format}"`)
    if (node.$ref !== undefined) {
      const m = /^#\/\$defs\/([^/]+)$/.exec(node.$ref)
      if (node.$ref !== "#" && (!m || root.$defs?.[m[1]!] === undefined))
        problems.push(`${path}: $ref ${node.$ref} does not resolve`)
    }
    if (Array.isArray(node.enum)) enumValues += node.enum.length
    if (types.includes("object")) {
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`)
      if (typeof node.properties !== "object" || node.properties === null)
        problems.push(`${path}: object without properties`)
      const keys = Object.keys(node.properties ?? {})
      const required: unknown[] = node.required ?? []
      if (keys.length !== required.length || keys.some((k) => !required.includes(k)))
        problems.push(
          `${path}: required ${JSON.stringify(required)} must list every property ${JSON.stringify(keys)}`,
        )
      if (depth + 1 > 10) problems.push(`${path}: deeper than 10 levels`)
      totalProps += keys.length
      for (const k of keys) check(node.properties[k], `${path}/properties/${k}`, depth + 1)
    } else if (node.properties !== undefined || node.additionalProperties !== undefined) {
      problems.push(`${path}: object keywords on a non-object`)
    }
    if (types.includes("array")) {
      if (node.items === undefined) problems.push(`${path}: array without items`)
      else check(node.items, `${path}/items`, depth)
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
        problems.push(`${path}: anyOf must be a non-empty list`)
      else for (const [i, b] of (node.anyOf as unknown[]).entries()) check(b, `${path}/anyOf/${i}`, depth)
    }
  }
  check(root, "#", 0)
  for (const [name, def] of Object.entries(root?.$defs ?? {})) check(def, `#/$defs/${name}`, 0)
  if (totalProps > 5000) problems.push(`more than 5000 properties`)
  if (enumValues > 1000) problems.push(`more than 1000 enum values`)
  return problems
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/

const corpusTools = (): Tool[] =>
  corpus.servers.flatMap((s) =>
    s.tools.map((t) =>
      makeTool({
        id: `${s.name}/${t.name}`,
        description: `${s.packageName}@${s.version}`,
        inputSchema: t.inputSchema,
      }),
    ),
  )

describe("strict conversion of real MCP tool schemas", () => {
  it("the corpus holds real servers' tools, with their versions", () => {
    expect(corpus.servers.length).toBeGreaterThanOrEqual(3)
    for (const s of corpus.servers) {
      expect(s.version).toMatch(/^\d+\.\d+\.\d+/)
      expect(s.tools.length).toBeGreaterThan(0)
    }
  })

  it("the checker itself catches violations", () => {
    expect(strictViolations({ type: "object", properties: { a: { type: "string" } } })).toEqual([
      "#: additionalProperties must be false",
      '#: required [] must list every property ["a"]',
    ])
    expect(
      strictViolations({
        type: "object",
        properties: {},
        required: [],
        additionalProperties: false,
        default: 1,
      }),
    ).toEqual(['#: keyword "default" is not supported'])
    expect(strictViolations({ anyOf: [] }).length).toBeGreaterThan(0)
  })

  it.each(["chat", "responses"] as const)(
    "every strict schema passes the independent checker (%s)",
    (api) => {
      const tools = corpusTools()
      const set = toOpenAITools(tools, { strict: true, api })
      expect(set.tools).toHaveLength(tools.length)
      const fns = set.tools.map((t: any) => (api === "chat" ? t.function : t))
      let strictCount = 0
      for (const [i, fn] of fns.entries()) {
        if (fn.strict) {
          strictCount++
          expect({ tool: tools[i]!.id, problems: strictViolations(fn.parameters) }).toEqual({
            tool: tools[i]!.id,
            problems: [],
          })
        } else {
          // a fallback is always explained
          expect(set.warnings.some((w) => w.toolId === tools[i]!.id && w.feature === "strict")).toBe(true)
        }
      }
      // every corpus tool can be expressed strictly
      expect(strictCount).toBe(tools.length)
      // names: valid, unique, reverse to the original ids
      const names = fns.map((f) => f.name as string)
      for (const n of names) expect(n).toMatch(NAME)
      expect(new Set(names).size).toBe(names.length)
      expect(names.map((n) => set.names.idOf(n))).toEqual(tools.map((t) => t.id))
    },
  )

  it("reports what strict mode lost in the corpus (defaults, uri format, bounds)", () => {
    const set = toOpenAITools(corpusTools(), { strict: true })
    const features = new Set(set.warnings.map((w) => w.feature))
    expect(features.has("default")).toBe(true)
    expect(features.has("format:uri")).toBe(true)
    for (const w of set.warnings) {
      expect(w.path.startsWith("/inputSchema")).toBe(true)
      expect(w.toolId).toBeDefined()
    }
  })
})

describe("collecting from a live MCP server", () => {
  it("spawns @modelcontextprotocol/server-everything and lists the same tools as the fixture", async (ctx) => {
    const spec = SERVERS.find((s) => s.name === "everything")!
    let live: Awaited<ReturnType<typeof collectServer>>
    try {
      live = await collectServer(spec, 10_000)
    } catch (error) {
      console.warn(`skipping live MCP collection: ${(error as Error).message}`)
      ctx.skip(`server-everything could not start: ${(error as Error).message}`)
      return
    }
    const fixture = corpus.servers.find((s) => s.name === "everything")!
    expect(live.tools.length).toBeGreaterThan(0)
    if (live.version === fixture.version)
      expect(live.tools.map((t) => t.name).sort()).toEqual(fixture.tools.map((t) => t.name).sort())
    const set = toOpenAITools(
      live.tools.map((t) => makeTool({ id: `everything/${t.name}`, inputSchema: t.inputSchema })),
    )
    for (const t of set.tools)
      if (t.function.strict) expect(strictViolations(t.function.parameters)).toEqual([])
  })
})
