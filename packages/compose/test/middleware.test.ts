import { fc, test as fcTest } from "@fast-check/vitest"
import {
  applyMiddleware,
  ConfigError,
  defineTool,
  InvalidArguments,
  InvalidCursor,
  listAllTools,
  ToolNotFound,
  type ToolResult,
  type ToolService,
  textResult,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  aliasing,
  argumentOverrides,
  capabilityFilter,
  compositeTools,
  readOnlyOnly,
  requestValidation,
  resolveComposites,
  searchModeView,
  toolset,
  virtualTools,
} from "../src/index.js"
import { bareService, recording } from "./support/bareService.js"
import { allDefinitions, echo, tools } from "./support/fixtures.js"

const ids = async (service: ToolService) => (await listAllTools(service)).map((t) => t.id)
const fresh = { listingTtlMs: 0 }

describe("request validation", () => {
  it("rejects oversized, non-object and schema-invalid arguments before the inner service", async () => {
    const rec = recording(bareService(allDefinitions))
    const svc = requestValidation({ maxArgumentBytes: 64 })(rec.service)
    await expect(
      svc.callTool({ name: "github/search", arguments: { q: "x".repeat(100) } }),
    ).rejects.toMatchObject({
      _tag: "InvalidArguments",
      issues: [{ rule: "maxBytes" }],
    })
    await expect(svc.callTool({ name: "github/search", arguments: [] as never })).rejects.toMatchObject({
      issues: [{ rule: "type" }],
    })
    const bad = await svc.callTool({ name: "github/search", arguments: { q: 3 } }).catch((e: unknown) => e)
    expect(bad).toBeInstanceOf(InvalidArguments)
    expect((bad as InvalidArguments).issues[0]).toMatchObject({ path: "/q", rule: "type" })
    const unknown = await svc.callTool({ name: "github/serch", arguments: {} }).catch((e: unknown) => e)
    expect(unknown).toBeInstanceOf(ToolNotFound)
    expect((unknown as ToolNotFound).suggestions).toContain("github/search")
    expect(rec.calls).toHaveLength(0)
    const ok = await svc.callTool({ name: "github/search", arguments: { q: "fine" } })
    expect(ok.structuredContent).toMatchObject({ q: "fine" })
    expect(rec.calls).toHaveLength(1)
  })

  it("counts multi-byte characters in the size cap", async () => {
    const svc = requestValidation({ maxArgumentBytes: 40, validateSchema: false })(
      bareService(allDefinitions),
    )
    // 12 characters but 36 bytes of UTF-8 plus the JSON around them
    await expect(
      svc.callTool({ name: "docs/search", arguments: { q: "€".repeat(12) } }),
    ).rejects.toBeInstanceOf(InvalidArguments)
    await expect(
      svc.callTool({ name: "docs/search", arguments: { q: "e".repeat(12) } }),
    ).resolves.toBeDefined()
  })
})

describe("capability filtering", () => {
  it("hides tools from listings and calls", async () => {
    const svc = capabilityFilter(toolset("ro").readOnly(), fresh)(bareService(allDefinitions))
    expect(await ids(svc)).toEqual(["docs/search", "github/search"])
    await expect(
      svc.callTool({ name: "github/delete_repo", arguments: { repo: "x" } }),
    ).rejects.toBeInstanceOf(ToolNotFound)
    await expect(svc.callTool({ name: "docs/search", arguments: { q: "a" } })).resolves.toBeDefined()
  })

  it("re-paginates the filtered listing with its own signed cursors", async () => {
    const many = Array.from({ length: 30 }, (_, i) => echo(`ns/t${String(i).padStart(2, "0")}`))
    const inner = bareService(many, { pageSize: 7 })
    const svc = capabilityFilter((t) => Number(t.name.slice(1)) % 3 !== 0, { pageSize: 4, listingTtlMs: 0 })(
      inner,
    )
    const first = await svc.listTools()
    expect(first.tools.map((t) => t.id)).toEqual(["ns/t01", "ns/t02", "ns/t04", "ns/t05"])
    const all = await ids(svc)
    expect(all).toHaveLength(20)
    expect(all).toEqual([...all].sort())
    const innerCursor = (await inner.listTools()).nextCursor!
    await expect(svc.listTools({ cursor: innerCursor })).rejects.toBeInstanceOf(InvalidCursor)
  })
})

describe("aliasing", () => {
  const svc = () =>
    aliasing(
      { "github/search": "gh/find", "docs/search": "github/search" },
      fresh,
    )(bareService(allDefinitions))

  it("lists aliases and rewrites calls back (round trip)", async () => {
    const listed = await ids(svc())
    expect(listed).toContain("gh/find")
    expect(listed).toContain("github/search")
    expect(listed).not.toContain("docs/search")
    const viaAlias = await svc().callTool({ name: "gh/find", arguments: { q: "a" } })
    expect(viaAlias.structuredContent).toMatchObject({ tool: "github/search" })
    // github/search is now the alias of docs/search (renames are simultaneous)
    const swapped = await svc().callTool({ name: "github/search", arguments: { q: "a" } })
    expect(swapped.structuredContent).toMatchObject({ tool: "docs/search" })
  })

  it("hides the original id of an aliased tool", async () => {
    const error = await svc()
      .callTool({ name: "docs/search", arguments: { q: "a" } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect((error as ToolNotFound).suggestions).toEqual(["github/search"])
  })

  it("errors name the alias, never the hidden original id", async () => {
    const error = await svc()
      .callTool({ name: "gh/find", arguments: { q: 42 } })
      .catch((e: unknown) => e)
    expect((error as { _tag: string })._tag).toBe("InvalidArguments")
    expect((error as { toolId: string }).toolId).toBe("gh/find")
    expect((error as Error).message).not.toContain('github/search"')
  })

  it("suggests aliases, not hidden originals, for unknown ids", async () => {
    const error = await svc()
      .callTool({ name: "docs/serch", arguments: { q: "a" } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolNotFound)
    expect((error as ToolNotFound).suggestions).not.toContain("docs/search")
  })

  it("rejects conflicting aliases", () => {
    expect(() => aliasing({ "a/x": "b/y", "a/z": "b/y" })).toThrow(ConfigError)
    expect(() =>
      aliasing([
        { tool: "a/x", alias: "b/y" },
        { tool: "a/x", alias: "b/z" },
      ]),
    ).toThrow(/already has the alias/)
    expect(() => aliasing({ "a/x": "a/x" })).toThrow(ConfigError)
    expect(() => aliasing({ "a/x": "no-slash" })).toThrow(ConfigError)
  })

  const idArb = fc.stringMatching(/^[a-c]\/[a-e]$/)
  fcTest.prop([fc.uniqueArray(fc.tuple(idArb, idArb), { selector: ([t]) => t, maxLength: 6 })])(
    "every listed tool is callable and reaches the tool it names (property)",
    async (pairs) => {
      const originals = ["a/a", "a/b", "b/c", "c/d", "c/e"]
      const aliasTargets = new Set<string>()
      const config: Record<string, string> = {}
      for (const [tool, alias] of pairs) {
        if (tool === alias || aliasTargets.has(alias)) continue
        config[tool] = alias
        aliasTargets.add(alias)
      }
      // aliases may not collide with tools that keep their name
      for (let changed = true; changed; ) {
        changed = false
        for (const [tool, alias] of Object.entries(config))
          if (originals.includes(alias) && !(alias in config)) {
            delete config[tool]
            changed = true
          }
      }
      const inner = bareService(originals.map((id) => echo(id)))
      const svc = aliasing(config, fresh)(inner)
      const listed = await listAllTools(svc)
      expect(listed.map((t) => t.id)).toEqual([...new Set(listed.map((t) => t.id))].sort())
      expect(listed).toHaveLength(originals.length)
      for (const tool of listed) {
        const result = await svc.callTool({ name: tool.id, arguments: {} })
        const reached = (result.structuredContent as { tool: string }).tool
        expect(config[reached] ?? reached).toBe(tool.id)
      }
    },
  )
})

describe("composite tools", () => {
  const slow = (id: string, ms: number) =>
    defineTool({
      id,
      handler: async () => {
        await new Promise((r) => setTimeout(r, ms))
        return textResult(`${id} done`)
      },
    })

  it("fans out concurrently, keeps the successes of a partial failure and flags the error", async () => {
    const inner = bareService([...allDefinitions, slow("s/a", 30), slow("s/b", 30)])
    const svc = compositeTools(
      [
        { name: "search_all", tools: ["github/search", "flaky/fail", "docs/search"] },
        { name: "both", tools: ["s/a", "s/b"] },
      ],
      fresh,
    )(inner)
    const result = await svc.callTool({ name: "composite/search_all", arguments: { q: "ts" } })
    expect(result.isError).toBe(true)
    const texts = result.content.map((b) => (b.type === "text" ? b.text : b.type))
    expect(texts[0]).toBe("[github/search]")
    expect(texts).toContain("[flaky/fail] (error)")
    expect(texts).toContain('Tool "flaky/fail" failed: backend exploded')
    expect(texts).toContain("[docs/search]")
    expect(result.content.every((b) => typeof b._meta?.["toolplane/target"] === "string")).toBe(true)
    expect((result.structuredContent as { results: unknown[] }).results).toMatchObject([
      { tool: "github/search", ok: true, structuredContent: { q: "ts" } },
      { tool: "flaky/fail", ok: false, error: { _tag: "ExecutionFailed" } },
      { tool: "docs/search", ok: true },
    ])
    const both = await svc.callTool({ name: "composite/both" })
    expect(both.isError).toBeUndefined()
  })

  it("starts every target before any finishes (max in flight = number of targets)", async () => {
    // Each target waits until all of them are running; a sequential fan-out would never get there
    // (the fallback timer only keeps a broken implementation from hanging the test). Speed is a
    // benchmark (bench/gateway.bench.ts), not a timed test.
    const n = 6
    let inFlight = 0
    let most = 0
    let allStarted!: () => void
    const everyoneRunning = new Promise<void>((resolve) => (allStarted = resolve))
    const gated = Array.from({ length: n }, (_, i) =>
      defineTool({
        id: `g/t${i}`,
        handler: async () => {
          inFlight++
          most = Math.max(most, inFlight)
          if (inFlight === n) allStarted()
          let timer: ReturnType<typeof setTimeout> | undefined
          await Promise.race([everyoneRunning, new Promise((r) => (timer = setTimeout(r, 1_000)))])
          clearTimeout(timer)
          inFlight--
          return textResult(`t${i}`)
        },
      }),
    )
    const svc = compositeTools([{ name: "gated", tools: gated.map((t) => t.id) }], fresh)(bareService(gated))
    const result = await svc.callTool({ name: "composite/gated" })
    expect(result.isError).toBeUndefined()
    expect(most).toBe(n)
    expect(inFlight).toBe(0)
    expect((result.structuredContent as { results: { tool: string }[] }).results.map((r) => r.tool)).toEqual(
      gated.map((t) => t.id),
    )
  })

  it("times out slow targets and keeps the others", async () => {
    let slowFinished = false
    const slowTarget = defineTool({
      id: "s/slow",
      handler: async () => {
        await new Promise((r) => setTimeout(r, 400))
        slowFinished = true
        return textResult("s/slow done")
      },
    })
    const svc = compositeTools(
      [{ name: "x/mixed", tools: ["s/fast", "s/slow"], timeoutMs: 40 }],
      fresh,
    )(bareService([slow("s/fast", 1), slowTarget]))
    const result = await svc.callTool({ name: "x/mixed" })
    // the composite answered without waiting for the slow target (no wall-clock bound: robust under load)
    expect(slowFinished).toBe(false)
    expect(result.isError).toBe(true)
    expect((result.structuredContent as { results: unknown[] }).results).toMatchObject([
      { tool: "s/fast", ok: true },
      { tool: "s/slow", ok: false, error: { _tag: "Timeout", timeoutMs: 40 } },
    ])
  })

  it("lists composites sorted in with the inner tools, with a derived schema", async () => {
    const svc = compositeTools([{ name: "search_all", tools: ["github/search", "docs/search"] }], {
      pageSize: 2,
      listingTtlMs: 0,
    })(bareService(allDefinitions))
    const listed = await listAllTools(svc)
    expect(listed.map((t) => t.id)).toEqual([...listed.map((t) => t.id)].sort())
    const composite = listed.find((t) => t.id === "composite/search_all")!
    expect(composite.inputSchema).toEqual(tools.search.inputSchema)
    expect(composite.annotations?.readOnlyHint).toBe(true)
  })

  it("lists merged object properties for targets with different but compatible schemas", async () => {
    const inner = bareService([
      tools.search, // { q: string } required q
      tools.fail, // { q: string } nothing required
      defineTool({
        id: "docs/paged",
        input: {
          type: "object",
          properties: { q: { type: "string", description: "query" }, limit: { type: "integer" } },
          required: ["q", "limit"],
        },
        handler: () => textResult("ok"),
      }),
      defineTool({
        id: "docs/numeric",
        input: { type: "object", properties: { q: { type: "number" } } },
        handler: () => textResult("ok"),
      }),
      defineTool({
        id: "docs/anyof",
        input: { type: "object", anyOf: [{ required: ["q"] }, { required: ["id"] }] },
        handler: () => textResult("ok"),
      }),
    ])
    const svc = compositeTools(
      [
        { name: "merged", tools: ["github/search", "docs/paged"] },
        { name: "optional", tools: ["github/search", "flaky/fail"] },
        { name: "clash", tools: ["github/search", "docs/numeric"] },
        { name: "opaque", tools: ["github/search", "docs/anyof"] },
      ],
      fresh,
    )(inner)
    const listed = new Map((await listAllTools(svc)).map((t) => [t.id, t.inputSchema]))
    // shared properties of one type are merged; required = required by every target
    expect(listed.get("composite/merged")).toEqual({
      type: "object",
      properties: { q: { type: "string" }, limit: { type: "integer" } },
      required: ["q"],
    })
    expect(listed.get("composite/optional")).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
    })
    // incompatible or non-mergeable schemas: any object, said explicitly
    expect(listed.get("composite/clash")).toEqual({ type: "object", additionalProperties: true })
    expect(listed.get("composite/opaque")).toEqual({ type: "object", additionalProperties: true })
  })

  it("validates definitions", () => {
    const bad = (defs: unknown, path: string) => {
      try {
        resolveComposites(defs as never)
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError)
        expect((error as ConfigError).path).toBe(path)
        return
      }
      throw new Error(`expected a ConfigError at ${path}`)
    }
    bad([{ name: "", tools: ["a/b"] }], "composite_tools[0].name")
    bad([{ name: "x", tools: [] }], "composite_tools[0].tools")
    bad(
      [
        { name: "x", tools: ["a/b"] },
        { name: "composite/x", tools: ["a/b"] },
      ],
      "composite_tools[1].name",
    )
    bad([{ name: "x", tools: ["a/b", "a/b"] }], "composite_tools[0].tools[1]")
    bad([{ name: "x", tools: ["nope"] }], "composite_tools[0].tools[0]")
    bad([{ name: "x", tools: ["a/b"], timeoutMs: 0 }], "composite_tools[0].timeoutMs")
    bad(
      [
        { name: "x", tools: ["composite/y"] },
        { name: "y", tools: ["a/b"] },
      ],
      "composite_tools[0].tools[0]",
    )
  })
})

describe("argument overrides", () => {
  it("injects hidden values, applies defaults and renames parameters", async () => {
    const rec = recording(bareService(allDefinitions))
    const svc = argumentOverrides(
      {
        "github/*": { token: { value: "secret" } },
        "github/create_issue": { repo: { default: "toolplane/toolplane" }, title: { rename: "summary" } },
      },
      fresh,
    )(rec.service)
    const listed = (await listAllTools(svc)).find((t) => t.id === "github/create_issue")!
    expect(Object.keys(listed.inputSchema.properties ?? {}).sort()).toEqual(["repo", "summary"])
    expect(listed.inputSchema.required).toEqual(["summary"])
    expect((listed.inputSchema.properties as Record<string, { default?: unknown }>).repo!.default).toBe(
      "toolplane/toolplane",
    )
    const result = await svc.callTool({
      name: "github/create_issue",
      arguments: { summary: "Bug", token: "client-tries-to-override" },
    })
    expect(result.structuredContent).toEqual({
      tool: "github/create_issue",
      title: "Bug",
      repo: "toolplane/toolplane",
      token: "secret",
    })
    expect(rec.calls[0]!.arguments).toEqual({ title: "Bug", repo: "toolplane/toolplane", token: "secret" })
  })

  it("rejects contradictory overrides", () => {
    expect(() => argumentOverrides({ "a/b": { x: { value: 1, default: 2 } } })).toThrow(ConfigError)
    expect(() => argumentOverrides({ "a/b": { x: { hide: true, rename: "y" } } })).toThrow(ConfigError)
    expect(() => argumentOverrides({ "a/b": { x: { rename: "z" }, y: { rename: "z" } } })).toThrow(
      ConfigError,
    )
  })
})

describe("search mode and virtual tools", () => {
  it("a search-mode view trims the listing but leaves tools callable", async () => {
    const svc = searchModeView(
      (all) => all.filter((t) => t.namespace === "docs"),
      fresh,
    )(bareService(allDefinitions))
    expect(await ids(svc)).toEqual(["docs/search"])
    await expect(svc.callTool({ name: "github/search", arguments: { q: "x" } })).resolves.toBeDefined()
  })

  it("virtual tools are listed and served in-process", async () => {
    const hello = defineTool({ id: "local/hello", handler: (): ToolResult => textResult("hi") })
    const svc = applyMiddleware(
      bareService(allDefinitions),
      virtualTools([hello], fresh),
      capabilityFilter(readOnlyOnly, fresh),
    )
    expect(await ids(svc)).toEqual(["docs/search", "github/search"])
    const open = virtualTools([hello], fresh)(bareService(allDefinitions))
    expect(await ids(open)).toContain("local/hello")
    expect((await open.callTool({ name: "local/hello" })).content).toEqual([{ type: "text", text: "hi" }])
    expect(() => virtualTools([hello, hello])).toThrow(ConfigError)
  })
})
