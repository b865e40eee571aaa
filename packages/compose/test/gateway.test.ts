import { fc, test as fcTest } from "@fast-check/vitest"
import { searchMode } from "@toolplane/discovery"
import {
  applyMiddleware,
  ConfigError,
  defineMiddleware,
  InvalidArguments,
  listAllTools,
  type Middleware,
  makeCursorCodec,
  ToolNotFound,
  type ToolService,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  byNamespace,
  GATEWAY_ORDER,
  type GatewayOptions,
  gatewayLayers,
  gatewayStack,
  hideDestructive,
  makePlanner,
  searchModeView,
  skillTool,
  toolset,
} from "../src/index.js"
import { bareService, recording, testCodec } from "./support/bareService.js"
import { allDefinitions, echo } from "./support/fixtures.js"

const fresh = { listingTtlMs: 0 }

/** Builds the stack with a probe above the runner and above every layer, recording `layer:tool`. */
const probed = (options: GatewayOptions, inner: ToolService = bareService(allDefinitions)) => {
  const trace: string[] = []
  const probe = (label: string): Middleware =>
    defineMiddleware({
      callTool: (request, next) => {
        trace.push(`${label}:${request.name}`)
        return next.callTool(request)
      },
    })
  const layers = gatewayLayers({ ...fresh, ...options })
  const service = applyMiddleware(
    inner,
    probe("runner"),
    ...layers.flatMap((l) => [l.middleware, probe(l.name)]),
  )
  return { service, trace, layers }
}

const options: GatewayOptions = {
  argumentOverrides: { "github/create_issue": { token: { value: "t0k3n" } } },
  capabilities: toolset("public").namespace("github", "docs", "flaky").hideDestructive(),
  searchMode: searchModeView((tools) => tools),
  aliases: { "github/search": "gh/find", "github/delete_repo": "gh/nuke" },
  composites: [{ name: "all", tools: ["gh/find", "docs/search", "github/delete_repo"] }],
}

describe("gateway stack order", () => {
  it("assembles the layers in the documented order", () => {
    const { layers } = probed(options)
    expect(layers.map((l) => l.name)).toEqual(GATEWAY_ORDER.filter((n) => n !== "tools"))
    // search mode, when given, wraps the composed toolset: it replaces the listing
    expect(layers.map((l) => l.name)).toEqual([
      "validation",
      "argumentOverrides",
      "capabilityFilter",
      "aliasing",
      "composite",
      "searchMode",
    ])
  })

  it("a call meets search mode, composite, aliasing, filtering, overrides, validation, then the runner", async () => {
    const { service, trace } = probed(options)
    await service.callTool({ name: "gh/find", arguments: { q: "x" } })
    expect(trace).toEqual([
      "searchMode:gh/find",
      "composite:gh/find",
      "aliasing:gh/find",
      "capabilityFilter:github/search",
      "argumentOverrides:github/search",
      "validation:github/search",
      "runner:github/search",
    ])
  })

  it("filtering hides before validation looks, and validation rejects before the runner", async () => {
    const { service, trace } = probed(options)
    // a hidden tool with invalid arguments: not found, validation never sees it
    const hidden = await service
      .callTool({ name: "jira/get_issue", arguments: { key: 42 } })
      .catch((e: unknown) => e)
    expect(hidden).toBeInstanceOf(ToolNotFound)
    expect(trace.at(-1)).toBe("capabilityFilter:jira/get_issue")
    trace.length = 0
    // a visible tool with invalid arguments: rejected by validation, the runner is never called
    const invalid = await service
      .callTool({ name: "docs/search", arguments: { q: 42 } })
      .catch((e: unknown) => e)
    expect(invalid).toBeInstanceOf(InvalidArguments)
    expect(trace.at(-1)).toBe("validation:docs/search")
    expect(trace).not.toContain("runner:docs/search")
  })

  it("filtering applies to original names, before aliasing: an alias cannot resurrect a hidden tool", async () => {
    const { service } = probed(options)
    const listed = (await listAllTools(service)).map((t) => t.id)
    expect(listed).toContain("gh/find")
    expect(listed).not.toContain("gh/nuke")
    expect(listed).not.toContain("github/delete_repo")
    await expect(service.callTool({ name: "gh/nuke", arguments: { repo: "r" } })).rejects.toBeInstanceOf(
      ToolNotFound,
    )
  })

  it("composite targets go through aliasing, filtering and validation; composite names are not aliased", async () => {
    const { service, trace } = probed(options)
    const result = await service.callTool({ name: "composite/all", arguments: { q: "ts" } })
    expect(trace).toContain("aliasing:gh/find")
    expect(trace).toContain("runner:github/search")
    expect(trace).toContain("runner:docs/search")
    // github/delete_repo is aliased (its original id is hidden) and destructive (filtered): it fails alone
    expect(trace).not.toContain("runner:github/delete_repo")
    expect(result.isError).toBe(true)
    expect(
      (result.structuredContent as { results: { tool: string; ok: boolean }[] }).results.map((r) => [
        r.tool,
        r.ok,
      ]),
    ).toEqual([
      ["gh/find", true],
      ["docs/search", true],
      ["github/delete_repo", false],
    ])
    const aliasOfComposite = probed({
      ...options,
      aliases: { ...options.aliases, "composite/all": "c/renamed" },
    })
    const listed = (await listAllTools(aliasOfComposite.service)).map((t) => t.id)
    expect(listed).toContain("composite/all")
    expect(listed).not.toContain("c/renamed")
  })

  it("argument overrides rewrite before validation checks the real schema", async () => {
    const { service } = probed(options)
    const result = await service.callTool({
      name: "github/create_issue",
      arguments: { title: "t", repo: "r" },
    })
    expect(result.structuredContent).toMatchObject({ token: "t0k3n" })
  })
})

describe("gatewayStack", () => {
  it("checks composite targets, aliases and overrides against the inner service when built", async () => {
    const inner = bareService(allDefinitions)
    const reject = async (opts: GatewayOptions, path: string, text: string) => {
      const error = await gatewayStack(inner, opts).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).path).toBe(path)
      expect((error as ConfigError).reason).toContain(text)
    }
    await reject(
      { composites: [{ name: "x", tools: ["github/serch"] }] },
      "composite_tools[0].tools[0]",
      '"github/search"',
    )
    await reject(
      { capabilities: hideDestructive(), composites: [{ name: "x", tools: ["github/delete_repo"] }] },
      "composite_tools[0].tools[0]",
      "capability filtering hides it",
    )
    await reject(
      { aliases: { "github/search": "gh/find" }, composites: [{ name: "x", tools: ["github/search"] }] },
      "composite_tools[0].tools[0]",
      'name it "gh/find"',
    )
    await reject(
      { composites: [{ name: "docs/search", tools: ["github/search"] }] },
      "composite_tools[0].name",
      "collides",
    )
    await reject({ aliases: { "github/search": "docs/search" } }, 'aliases["github/search"]', "collides")
    await reject({ aliases: { "github/nope": "x/y" } }, 'aliases["github/nope"]', "does not exist")
    await reject(
      { argumentOverrides: { "nope/x": { a: { value: 1 } } } },
      'argument_overrides["nope/x"]',
      "no tool",
    )
    await reject(
      { argumentOverrides: { "github/search": { q: { hide: true } } } },
      "argument_overrides(github/search).q",
      "give a value",
    )
    // search mode wraps the composed toolset: composites may target tools its listing leaves out, and
    // its view is the whole listing, composites included
    const ok = await gatewayStack(inner, {
      searchMode: searchModeView((tools) => tools.filter((t) => t.namespace === "docs")),
      composites: [{ name: "x", tools: ["github/search"] }],
    })
    expect((await listAllTools(ok)).map((t) => t.id)).toEqual(["docs/search"])
    expect((await ok.callTool({ name: "composite/x", arguments: { q: "ts" } })).isError).toBeUndefined()
  })

  it("serves a sorted listing, paginated with the configured signed cursors", async () => {
    const codec = makeCursorCodec({ keys: [{ kid: "gw", secret: "0123456789abcdef0123456789abcdef" }] })
    const many = Array.from({ length: 25 }, (_, i) => echo(`ns/t${String(i).padStart(2, "0")}`))
    const gateway = await gatewayStack(bareService(many, { pageSize: 10 }), {
      codec,
      pageSize: 6,
      aliases: { "ns/t00": "zz/last" },
      composites: [{ name: "fan", tools: ["ns/t01", "ns/t02"] }],
    })
    const first = await gateway.listTools()
    expect(first.tools).toHaveLength(6)
    const all = await listAllTools(gateway)
    expect(all.map((t) => t.id)).toEqual([...all.map((t) => t.id)].sort())
    expect(all).toHaveLength(26)
    expect(all.at(-1)!.id).toBe("zz/last")
    // another replica with the same key continues the page
    const replica = await gatewayStack(bareService(many), {
      codec,
      pageSize: 6,
      aliases: { "ns/t00": "zz/last" },
      composites: [{ name: "fan", tools: ["ns/t01", "ns/t02"] }],
    })
    expect((await replica.listTools({ cursor: first.nextCursor! })).tools[0]!.id).toBe(all[6]!.id)
  })

  it("serves skills as tools through the same stack", async () => {
    const base = bareService(allDefinitions)
    const plan = makePlanner({ tools: ["gh/find", "docs/search"] }).plan({
      name: "lookup",
      steps: [
        { id: "find", tool: "gh/find", inputs: { q: "{{$input#/topic}}" } },
        { id: "docs", tool: "docs/search", inputs: { q: { $ref: "find#/q" } } },
      ],
    })
    let gateway: ToolService | undefined
    const tool = skillTool(plan, () => gateway!, { id: "skills/lookup" })
    gateway = await gatewayStack(base, { tools: [tool], aliases: { "github/search": "gh/find" } })
    const result = await gateway.callTool({ name: "skills/lookup", arguments: { topic: "ts" } })
    expect(result.structuredContent).toEqual({ tool: "docs/search", q: "ts" })
    expect((await listAllTools(gateway)).map((t) => t.id)).toContain("skills/lookup")
  }, 10_000)

  const nsArb = fc.subarray(["github", "docs", "jira", "flaky"], { minLength: 1 })
  fcTest.prop([nsArb, fc.boolean(), fc.boolean()], { numRuns: 25 })(
    "over random configs: listings are sorted and unique, listed tools are callable, hidden ones are not (property)",
    async (namespaces, aliasSearch, withComposite) => {
      const rec = recording(bareService(allDefinitions))
      const visible = allDefinitions.filter((d) => namespaces.includes(d.namespace)).map((d) => d.id)
      const aliases =
        aliasSearch && visible.includes("github/search") ? { "github/search": "gh/find" } : undefined
      const target = aliases ? "gh/find" : visible[0]!
      const gateway = await gatewayStack(rec.service, {
        ...fresh,
        capabilities: byNamespace(...namespaces),
        ...(aliases ? { aliases } : {}),
        ...(withComposite ? { composites: [{ name: "one", tools: [target] }] } : {}),
      })
      const listed = (await listAllTools(gateway)).map((t) => t.id)
      expect(listed).toEqual([...new Set(listed)].sort())
      expect(listed.length).toBe(visible.length + (withComposite ? 1 : 0))
      for (const d of allDefinitions) {
        const name = aliases?.[d.id as "github/search"] ?? d.id
        const outcome = await gateway.callTool({ name, arguments: {} }).then(
          () => "ok",
          (e: { _tag: string }) => e._tag,
        )
        // every call either reaches validation (InvalidArguments: {} lacks required fields) or is not found
        expect(outcome === "ToolNotFound").toBe(!visible.includes(d.id))
      }
      expect(rec.calls.every((c) => visible.includes(c.name))).toBe(true)
    },
  )
})

describe("search mode wraps the composed toolset", () => {
  const config = (): GatewayOptions => ({
    capabilities: toolset("public").hideDestructive(),
    aliases: { "github/search": "gh/find" },
    composites: [{ name: "both", tools: ["gh/find", "docs/search"], description: "Search code and docs" }],
    searchMode: searchMode({ codec: testCodec }),
  })
  const hits = async (gateway: ToolService, query: string) =>
    (
      (await gateway.callTool({ name: "toolplane/search_tools", arguments: { query, limit: 50 } }))
        .structuredContent as { hits: { id: string }[] }
    ).hits.map((h) => h.id)

  it("lists exactly the meta-tools, even with composites configured", async () => {
    const gateway = await gatewayStack(bareService(allDefinitions), config())
    expect((await listAllTools(gateway)).map((t) => t.id)).toEqual([
      "toolplane/call_tool",
      "toolplane/describe_tool",
      "toolplane/search_tools",
    ])
  })

  it("searches and calls what a client could call: aliases and composites, not hidden originals", async () => {
    const gateway = await gatewayStack(bareService(allDefinitions), config())
    const found = await hits(gateway, "") // an empty query lists every indexed tool
    expect(found).toContain("gh/find")
    expect(found).toContain("composite/both")
    expect(found).not.toContain("github/search")
    expect(found).not.toContain("github/delete_repo") // filtered
    expect(await hits(gateway, "search")).toContain("composite/both")

    const viaAlias = await gateway.callTool({
      name: "toolplane/call_tool",
      arguments: { id: "gh/find", arguments: { q: "ts" } },
    })
    expect(viaAlias.structuredContent).toMatchObject({ tool: "github/search", q: "ts" })
    const composite = await gateway.callTool({
      name: "toolplane/call_tool",
      arguments: { id: "composite/both", arguments: { q: "ts" } },
    })
    expect(composite.isError).toBeUndefined()

    // the original id of an aliased tool is hidden: through call_tool and directly
    await expect(
      gateway.callTool({
        name: "toolplane/call_tool",
        arguments: { id: "github/search", arguments: { q: "ts" } },
      }),
    ).rejects.toBeInstanceOf(ToolNotFound)
    await expect(gateway.callTool({ name: "github/search", arguments: { q: "ts" } })).rejects.toBeInstanceOf(
      ToolNotFound,
    )
    const described = await gateway.callTool({
      name: "toolplane/describe_tool",
      arguments: { id: "gh/find" },
    })
    expect(JSON.stringify(described.structuredContent)).toContain("gh/find")
  })
})
