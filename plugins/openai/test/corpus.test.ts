/**
 * Strict conversion over real tool schemas listed by MCP servers from npm (the testkit's fixture,
 * collected by its scripts/collectCorpus.ts), checked by an independent checker written from OpenAI's
 * documented strict-mode rules (it shares no code with src/strict.ts).
 */
import { makeTool, type Tool } from "@toolplane/foundation"
import { CORPUS_SERVERS, collectServer, corpusFixture } from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import { toOpenAITools } from "../src/index.js"
import { strictViolations } from "./strictChecker.js"

const corpus = corpusFixture()

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
    const spec = CORPUS_SERVERS.find((s) => s.name === "everything")!
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
