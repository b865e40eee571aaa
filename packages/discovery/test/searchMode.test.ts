import {
  applyMiddleware,
  type CallToolRequest,
  ExecutionFailed,
  ExpiredCursor,
  InvalidArguments,
  InvalidCursor,
  isToolError,
  makeContext,
  makeCursorCodec,
  makeTool,
  paginateTools,
  structuredResult,
  type Tool,
  ToolNotFound,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { type SearchToolsResult, searchMode } from "../src/index.js"

// 20 verbs × 20 adjectives × 15 nouns = 6,000 distinct descriptions
const VERBS = [
  "archive", "calibrate", "decrypt", "export", "fetch", "geocode", "hydrate", "index", "jitter", "knead",
  "launch", "merge", "normalize", "obfuscate", "publish", "quarantine", "render", "synchronize", "translate", "validate",
] // biome-ignore format: table
const ADJECTIVES = [
  "amber", "brisk", "cobalt", "dusty", "electric", "frozen", "gilded", "hollow", "ivory", "jagged",
  "lunar", "marble", "nimble", "opal", "polar", "quiet", "rusty", "silken", "tidal", "velvet",
] // biome-ignore format: table
const NOUNS = [
  "invoice", "telescope", "glacier", "orchard", "ledger", "satellite", "turbine", "violin", "harbor", "meadow",
  "pyramid", "canyon", "lantern", "compass", "volcano",
] // biome-ignore format: table
const NAMESPACES = Array.from({ length: 25 }, (_, i) => `svc${String.fromCharCode(97 + (i % 26))}${i}`)

const phrase = (i: number): string =>
  `${VERBS[i % 20]} ${ADJECTIVES[Math.floor(i / 20) % 20]} ${NOUNS[Math.floor(i / 400) % 15]}`

const makeTools = (n: number): Tool[] =>
  Array.from({ length: n }, (_, i) =>
    makeTool({
      namespace: NAMESPACES[i % NAMESPACES.length]!,
      name: `op_${i}`,
      description: `${phrase(i)}. Operation number ${i} of the catalog.`,
      inputSchema: {
        type: "object",
        properties: { target: { type: "string", description: "what to act on" } },
        required: ["target"],
      },
      tags: i % 2 === 0 ? ["even"] : ["odd"],
      category: i % 3 === 0 ? "batch" : "online",
    }),
  )

interface Recorded {
  readonly name: string
  readonly arguments: unknown
  readonly callerId: string | undefined
  readonly cursor: string | undefined
}

/** A small inner tool service over `tools` that records calls; listing is paginated (100 a page). */
const innerService = (initial: readonly Tool[]) => {
  let tools = [...initial].sort((a, b) => (a.id < b.id ? -1 : 1))
  let byId = new Map(tools.map((t) => [t.id, t]))
  const calls: Recorded[] = []
  let listings = 0
  const codec = makeCursorCodec({ keys: [{ kid: "inner", secret: "inner-secret-0123456789abcdef" }] })
  const service: ToolService = {
    async listTools(request = {}) {
      if (request.cursor === undefined) listings++
      return paginateTools(tools, { codec, pageSize: 100, cursor: request.cursor })
    },
    async callTool(request: CallToolRequest): Promise<ToolResult> {
      calls.push({
        name: request.name,
        arguments: request.arguments,
        callerId: request.context?.callerId,
        cursor: request.cursor,
      })
      const tool = byId.get(request.name)
      if (tool === undefined) throw new ToolNotFound({ toolId: request.name, suggestions: [] })
      if (request.arguments?.target === "explode")
        throw new ExecutionFailed({ toolId: tool.id, cause: { name: "Error", message: "boom" } })
      return structuredResult({ ran: tool.id, target: request.arguments?.target ?? null })
    },
  }
  return {
    service,
    calls,
    get listings() {
      return listings
    },
    setTools(next: readonly Tool[]) {
      tools = [...next].sort((a, b) => (a.id < b.id ? -1 : 1))
      byId = new Map(tools.map((t) => [t.id, t]))
    },
  }
}

const codec = makeCursorCodec({ keys: [{ kid: "k1", secret: "search-mode-test-secret-0123456789" }] })
const SEARCH = "toolplane/search_tools"
const DESCRIBE = "toolplane/describe_tool"
const CALL = "toolplane/call_tool"

const structured = <T>(result: ToolResult): T => result.structuredContent as T

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}

describe("search mode over 5,000 tools", () => {
  const tools = makeTools(5000)
  const inner = innerService(tools)
  const service = applyMiddleware(
    inner.service,
    searchMode({ codec, visibility: "shared", refreshMs: 3_600_000 }),
  )

  it("reaches every tool through its three meta-tools", async () => {
    const context = makeContext({ callerId: "agent-1" })
    let firstRank = 0
    let maxPages = 0
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i]!
      // search with a query made from the tool's description, following nextCursor
      let cursor: string | undefined
      let found = false
      let pages = 0
      do {
        const page = structured<SearchToolsResult>(
          await service.callTool({
            name: SEARCH,
            arguments: { query: phrase(i), limit: 5, ...(cursor ? { cursor } : {}) },
            context,
          }),
        )
        pages++
        const at = page.hits.findIndex((h) => h.id === tool.id)
        if (at >= 0) {
          found = true
          if (pages === 1 && at === 0) firstRank++
          expect(page.hits[at]!.summary).toContain(phrase(i))
        }
        cursor = page.nextCursor
      } while (!found && cursor !== undefined && pages < 4)
      expect(found, `search_tools did not find ${tool.id} for "${phrase(i)}"`).toBe(true)
      maxPages = Math.max(maxPages, pages)
      // describe_tool returns its schema
      const doc = structured<{ id: string; inputSchema: unknown }>(
        await service.callTool({ name: DESCRIBE, arguments: { id: tool.id }, context }),
      )
      expect(doc.id).toBe(tool.id)
      expect(doc.inputSchema).toEqual(tool.inputSchema)
    }
    // distinctive descriptions: the tool itself is the top hit
    expect(firstRank).toBe(tools.length)
    expect(maxPages).toBe(1)
    // the inner listing was read once (50 pages of 100), not per call ("shared": no per-caller listings)
    expect(inner.listings).toBe(1)

    // call_tool reaches a sample of 500 tools plus the first and the last
    const sample = new Set([0, tools.length - 1])
    let seed = 7
    while (sample.size < 502) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      sample.add(seed % tools.length)
    }
    const before = inner.calls.length
    for (const i of sample) {
      const tool = tools[i]!
      const result = await service.callTool({
        name: CALL,
        arguments: { id: tool.id, arguments: { target: `t${i}` } },
        context,
      })
      expect(result.structuredContent).toEqual({ ran: tool.id, target: `t${i}` })
    }
    const made = inner.calls.slice(before)
    expect(made.map((c) => c.name)).toEqual([...sample].map((i) => tools[i]!.id))
    expect(made.every((c) => c.callerId === "agent-1")).toBe(true)
    // 5,000 searches and describes plus 502 calls: ~1.5 s alone, much longer on a loaded machine; the
    // timeout only guards against a hang (the index is built once: refreshMs is an hour, so no re-listing
    // can happen mid-test however slow the machine is)
  }, 120_000)

  it("lists exactly the three meta-tools, with object input schemas", async () => {
    const page = await service.listTools()
    expect(page.tools.map((t) => t.id)).toEqual([CALL, DESCRIBE, SEARCH])
    expect(page.nextCursor).toBeUndefined()
    for (const t of page.tools) {
      expect(t.inputSchema.type).toBe("object")
      expect(t.inputSchema.additionalProperties).toBe(false)
      expect(t.inputSchema.required).toBeDefined()
    }
    // a listing cursor is verified and honoured (keyset: tools after the position)
    const cursor = codec.encode({ purpose: "toolplane/search-mode/tools/list" }, DESCRIBE)
    expect((await service.listTools({ cursor })).tools.map((t) => t.id)).toEqual([SEARCH])
    await expect(service.listTools({ cursor: `${cursor}x` })).rejects.toBeInstanceOf(InvalidCursor)
    const searchCursor = structured<SearchToolsResult>(
      await service.callTool({ name: SEARCH, arguments: { query: "archive", limit: 1 } }),
    ).nextCursor!
    await expect(service.listTools({ cursor: searchCursor })).rejects.toBeInstanceOf(InvalidCursor)
  })

  it("passes calls of other ids straight to the inner service", async () => {
    const result = await service.callTool({ name: tools[42]!.id, arguments: { target: "direct" } })
    expect(result.structuredContent).toEqual({ ran: tools[42]!.id, target: "direct" })
    expect(inner.calls.at(-1)!.name).toBe(tools[42]!.id)
  })

  it("filters by namespace, tags and category, and pages with nextCursor", async () => {
    const ns = NAMESPACES[3]!
    const all: string[] = []
    let cursor: string | undefined
    let total = 0
    do {
      const page = structured<SearchToolsResult>(
        await service.callTool({
          name: SEARCH,
          arguments: {
            query: "operation catalog",
            namespace: ns,
            tags: ["odd"],
            limit: 50,
            ...(cursor ? { cursor } : {}),
          },
        }),
      )
      total = page.total
      all.push(...page.hits.map((h) => h.id))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const expected = tools.filter((t) => t.namespace === ns && t.tags!.includes("odd")).map((t) => t.id)
    expect(total).toBe(expected.length)
    expect(all.sort()).toEqual(expected.sort())
    const batch = structured<SearchToolsResult>(
      await service.callTool({
        name: SEARCH,
        arguments: { query: "archive amber", category: "batch", limit: 50 },
      }),
    )
    expect(batch.hits.length).toBeGreaterThan(0)
    for (const h of batch.hits) expect(tools.find((t) => t.id === h.id)!.category).toBe("batch")
  })

  it("rejects tampered, foreign-query, other-caller and expired search cursors", async () => {
    const alice = makeContext({ callerId: "alice" })
    const first = structured<SearchToolsResult>(
      await service.callTool({
        name: SEARCH,
        arguments: { query: "frozen glacier", limit: 3 },
        context: alice,
      }),
    )
    const cursor = first.nextCursor!
    expect(cursor).toBeTypeOf("string")
    const second = structured<SearchToolsResult>(
      await service.callTool({
        name: SEARCH,
        arguments: { query: "frozen glacier", limit: 3, cursor },
        context: alice,
      }),
    )
    expect(second.hits.map((h) => h.id)).not.toContain(first.hits[0]!.id)
    const bad = (args: Record<string, unknown>, context = alice) =>
      rejection(service.callTool({ name: SEARCH, arguments: { limit: 3, ...args }, context }))
    const flipped = cursor.slice(0, 30) + (cursor[30] === "A" ? "B" : "A") + cursor.slice(31)
    expect(await bad({ query: "frozen glacier", cursor: flipped })).toBeInstanceOf(InvalidCursor)
    expect(await bad({ query: "rusty canyon", cursor })).toBeInstanceOf(InvalidCursor)
    expect(await bad({ query: "frozen glacier", namespace: NAMESPACES[0], cursor })).toBeInstanceOf(
      InvalidCursor,
    )
    expect(
      await bad({ query: "frozen glacier", cursor }, makeContext({ callerId: "mallory" })),
    ).toBeInstanceOf(InvalidCursor)
    const foreign = makeCursorCodec({ keys: [{ kid: "k1", secret: "another-secret-entirely-0123456789" }] })
    const forged = foreign.encode({ purpose: "search", caller: "alice", args: { q: "frozen glacier" } }, 0)
    expect(await bad({ query: "frozen glacier", cursor: forged })).toBeInstanceOf(InvalidCursor)

    let t = 5_000_000
    const shortLived = makeCursorCodec({
      keys: [{ kid: "k1", secret: "search-mode-test-secret-0123456789" }],
      ttlMs: 1000,
      now: () => t,
    })
    const svc = applyMiddleware(innerService(tools.slice(0, 50)).service, searchMode({ codec: shortLived }))
    const old = structured<SearchToolsResult>(
      await svc.callTool({ name: SEARCH, arguments: { query: "operation", limit: 2 } }),
    ).nextCursor!
    t += 2000
    expect(
      await rejection(svc.callTool({ name: SEARCH, arguments: { query: "operation", cursor: old } })),
    ).toBeInstanceOf(ExpiredCursor)
  })

  it("rejects bad meta-tool arguments with InvalidArguments and JSON pointers", async () => {
    const issues = async (name: string, args: unknown) => {
      const error = await rejection(service.callTool({ name, arguments: args as Record<string, unknown> }))
      expect(error).toBeInstanceOf(InvalidArguments)
      expect((error as InvalidArguments).toolId).toBe(name)
      return (error as InvalidArguments).issues.map((i) => `${i.path} ${i.rule}`)
    }
    expect(await issues(SEARCH, {})).toContain("/query required")
    expect(await issues(SEARCH, { query: 5 })).toContain("/query type")
    expect(await issues(SEARCH, { query: "x", limit: 0 })).toContain("/limit minimum")
    expect(await issues(SEARCH, { query: "x", limit: 51 })).toContain("/limit maximum")
    expect(await issues(SEARCH, { query: "x", tags: ["ok", 3] })).toContain("/tags/1 type")
    expect(await issues(SEARCH, { query: "x", extra: true })).toContain("/extra additionalProperties")
    expect(await issues(DESCRIBE, { id: "a/b", level: "huge" })).toContain("/level enum")
    expect(await issues(DESCRIBE, { level: "full" })).toContain("/id required")
    expect(await issues(CALL, { id: tools[0]!.id, arguments: "target=x" })).toContain("/arguments type")
    expect(await issues(CALL, { id: "" })).toContain("/id minLength")
  })

  it("fails with ToolNotFound and suggestions for unknown ids", async () => {
    const near = tools[123]!.id
    const typo = `${near.slice(0, -1)}x`
    for (const name of [DESCRIBE, CALL]) {
      const error = await rejection(service.callTool({ name, arguments: { id: typo } }))
      expect(error).toBeInstanceOf(ToolNotFound)
      expect((error as ToolNotFound).toolId).toBe(typo)
      expect((error as ToolNotFound).suggestions).toContain(near)
    }
    const before = inner.calls.length
    await rejection(service.callTool({ name: CALL, arguments: { id: "nope/missing" } }))
    expect(inner.calls.length).toBe(before)
  })

  it("propagates the inner service's typed errors unchanged and forwards cursors", async () => {
    const tool = tools[7]!
    const error = await rejection(
      service.callTool({ name: CALL, arguments: { id: tool.id, arguments: { target: "explode" } } }),
    )
    expect(isToolError(error)).toBe(true)
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect((error as ExecutionFailed).toolId).toBe(tool.id)
    await service.callTool({ name: CALL, arguments: { id: tool.id }, cursor: "continuation", id: "corr-1" })
    expect(inner.calls.at(-1)).toMatchObject({ name: tool.id, arguments: {}, cursor: "continuation" })
  })

  it("describes at every level", async () => {
    const id = tools[9]!.id
    const at = async (level?: string) =>
      structured<Record<string, unknown>>(
        await service.callTool({ name: DESCRIBE, arguments: { id, ...(level ? { level } : {}) } }),
      )
    const summary = await at("summary")
    expect(summary).toEqual({ level: "summary", id, summary: expect.stringContaining(phrase(9)) })
    expect((await at()).level).toBe("schema")
    const full = await at("full")
    expect(full.level).toBe("full")
    expect(full.tags).toEqual(["odd"])
  })
})

describe("search mode index", () => {
  it("builds once for concurrent first calls and refreshes incrementally after refreshMs", async () => {
    const tools = makeTools(300)
    const inner = innerService(tools.slice(0, 200))
    let t = 0
    const service = applyMiddleware(inner.service, searchMode({ codec, refreshMs: 1000, now: () => t }))
    expect(inner.listings).toBe(0) // lazy: nothing listed before the first meta-call
    await service.listTools()
    expect(inner.listings).toBe(0)
    const results = await Promise.all(
      Array.from({ length: 8 }, () => service.callTool({ name: SEARCH, arguments: { query: phrase(5) } })),
    )
    expect(inner.listings).toBe(1)
    for (const r of results) expect(structured<SearchToolsResult>(r).hits[0]!.id).toBe(tools[5]!.id)

    // the listing changes: tool 250 added, tool 5 removed, tool 6 re-described
    const changed = makeTool({ ...tools[6]!, description: "Reticulate splines for the zeppelin." })
    inner.setTools([...tools.slice(0, 200).filter((_x, i) => i !== 5 && i !== 6), changed, tools[250]!])
    const find = async (query: string) =>
      structured<SearchToolsResult>(await service.callTool({ name: SEARCH, arguments: { query } })).hits.map(
        (h) => h.id,
      )
    t = 999 // not stale yet: the old index answers
    expect(await find(phrase(250))).not.toContain(tools[250]!.id)
    expect(inner.listings).toBe(1)
    t = 1000 // stale: re-listed before answering
    expect((await find(phrase(250)))[0]).toBe(tools[250]!.id)
    expect(inner.listings).toBe(2)
    expect(await find(phrase(5))).not.toContain(tools[5]!.id)
    expect((await find("reticulate zeppelin splines"))[0]).toBe(tools[6]!.id)
    const gone = await rejection(service.callTool({ name: DESCRIBE, arguments: { id: tools[5]!.id } }))
    expect(gone).toBeInstanceOf(ToolNotFound)
    const added = await service.callTool({
      name: CALL,
      arguments: { id: tools[250]!.id, arguments: { target: "x" } },
    })
    expect(added.structuredContent).toEqual({ ran: tools[250]!.id, target: "x" })
    expect(inner.listings).toBe(2)
  })

  it("keeps the previous index when a re-listing fails, and fails the first call when the first does", async () => {
    const tools = makeTools(20)
    let fail = true
    let t = 0
    const base = innerService(tools).service
    const flaky: ToolService = {
      listTools: (request) =>
        fail
          ? Promise.reject(
              new ExecutionFailed({ toolId: "(list)", cause: { name: "Error", message: "down" } }),
            )
          : base.listTools(request),
      callTool: (request) => base.callTool(request),
    }
    const service = applyMiddleware(flaky, searchMode({ refreshMs: 10, now: () => t }))
    expect(
      await rejection(service.callTool({ name: SEARCH, arguments: { query: phrase(3) } })),
    ).toBeInstanceOf(ExecutionFailed)
    fail = false
    const ok = structured<SearchToolsResult>(
      await service.callTool({ name: SEARCH, arguments: { query: phrase(3) } }),
    )
    expect(ok.hits[0]!.id).toBe(tools[3]!.id)
    fail = true
    t = 100
    const stale = structured<SearchToolsResult>(
      await service.callTool({ name: SEARCH, arguments: { query: phrase(3) } }),
    )
    expect(stale.hits[0]!.id).toBe(tools[3]!.id)
  })

  it("uses the configured namespace, page size and limits, and rejects bad options", async () => {
    const inner = innerService(makeTools(30))
    const service = applyMiddleware(
      inner.service,
      searchMode({ namespace: "meta", pageSize: 4, maxResults: 6 }),
    )
    expect((await service.listTools()).tools.map((t) => t.id)).toEqual([
      "meta/call_tool",
      "meta/describe_tool",
      "meta/search_tools",
    ])
    const page = structured<SearchToolsResult>(
      await service.callTool({ name: "meta/search_tools", arguments: { query: "operation" } }),
    )
    expect(page.hits).toHaveLength(4)
    expect(page.total).toBe(30)
    expect(
      await rejection(service.callTool({ name: "meta/search_tools", arguments: { query: "x", limit: 7 } })),
    ).toBeInstanceOf(InvalidArguments)
    // the default meta-tool names are ordinary ids here: passed through (and unknown to the inner service)
    expect(await rejection(service.callTool({ name: SEARCH, arguments: { query: "x" } }))).toBeInstanceOf(
      ToolNotFound,
    )
    expect(() => searchMode({ pageSize: 0 })).toThrow()
    expect(() => searchMode({ pageSize: 20, maxResults: 10 })).toThrow()
    expect(() => searchMode({ namespace: "bad/ns" })).toThrow()
    expect(() => searchMode({ refreshMs: -1 })).toThrow()
  })
})
