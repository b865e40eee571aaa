import { fc, test as fcTest } from "@fast-check/vitest"
import { ConfigError, InvalidTool, type Tool, ToolConflict } from "@toolplane/foundation"
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import {
  allowAll,
  allowIds,
  allowNamespaces,
  allowScopes,
  and,
  byNamespace,
  denyAll,
  denyIds,
  denyTags,
  filterTools,
  hideDestructive,
  not,
  or,
  readOnlyOnly,
  tagsAll,
  tagsAny,
  tagsNone,
  toolset,
} from "../src/index.js"
import { plainTool } from "./support/fixtures.js"

const catalog: Tool[] = [
  plainTool("github/search", { tags: ["read", "code"], annotations: { readOnlyHint: true } }),
  plainTool("github/create_issue", { tags: ["write"], annotations: { destructiveHint: false } }),
  plainTool("github/delete_repo", { tags: ["admin", "write"], annotations: { destructiveHint: true } }),
  plainTool("docs/search", { tags: ["read"], category: "docs", annotations: { readOnlyHint: true } }),
  plainTool("jira/get_issue", { tags: ["read"], metadata: { scopes: ["jira:read"] } }),
  plainTool("jira/delete_issue", { tags: ["write"], metadata: { scopes: ["jira:write"] } }),
]
const ids = (tools: Iterable<Tool>) => [...tools].map((t) => t.id)

describe("filters", () => {
  it("match tags any/all/none, namespaces, ids and annotations", () => {
    expect(ids(filterTools(catalog, tagsAny("admin", "code")))).toEqual([
      "github/search",
      "github/delete_repo",
    ])
    expect(ids(filterTools(catalog, tagsAll("write", "admin")))).toEqual(["github/delete_repo"])
    expect(ids(filterTools(catalog, tagsNone("read")))).toEqual([
      "github/create_issue",
      "github/delete_repo",
      "jira/delete_issue",
    ])
    expect(ids(filterTools(catalog, byNamespace("docs", "jira")))).toHaveLength(3)
    expect(ids(filterTools(catalog, readOnlyOnly))).toEqual(["github/search", "docs/search"])
    expect(ids(filterTools(catalog, hideDestructive()))).not.toContain("github/delete_repo")
    expect(ids(filterTools(catalog, hideDestructive({ assumeDestructive: true })))).toEqual([
      "github/search",
      "github/create_issue",
      "docs/search",
    ])
  })

  it("match id patterns: exact, glob and re:", () => {
    expect(ids(filterTools(catalog, allowIds("github/*")))).toEqual([
      "github/search",
      "github/create_issue",
      "github/delete_repo",
    ])
    expect(ids(filterTools(catalog, allowIds("*/search")))).toEqual(["github/search", "docs/search"])
    expect(ids(filterTools(catalog, allowIds("jira/get_issue", "re:^docs/")))).toEqual([
      "docs/search",
      "jira/get_issue",
    ])
    expect(ids(filterTools(catalog, denyIds("**delete*")))).toHaveLength(4)
    expect(() => allowIds("re:(")).toThrow(ConfigError)
  })

  it("compose with and/or/not and work data-last in a pipe", () => {
    const f = and(tagsAny("read"), not(byNamespace("docs")))
    expect(ids(pipe(catalog, filterTools(f)))).toEqual(["github/search", "jira/get_issue"])
    expect(ids(filterTools(catalog, or(byNamespace("docs"), tagsAny("admin"))))).toEqual([
      "github/delete_repo",
      "docs/search",
    ])
  })
})

describe("toolset builder", () => {
  it("AND-composes filters in builder order and says which one rejected a tool", () => {
    const builder = toolset("t")
      .fromTools(catalog)
      .namespace("github", "jira")
      .tags({ any: ["read"] })
    const set = builder.build()
    expect(set.ids()).toEqual(["github/search", "jira/get_issue"])
    const verdict = builder.selection().explain(catalog[3]!)
    expect(verdict).toEqual({ admitted: false, decidedBy: "filter #1 namespace(github,jira)" })
    expect(builder.selection().explain(catalog[1]!).decidedBy).toBe("filter #2 tags(any: read)")
  })

  it("runs policies after filters; the first deciding policy wins", () => {
    const base = toolset("t")
      .fromTools(catalog)
      .tags({ any: ["write"] })
    const denyFirst = base.policy(denyTags("admin"), allowAll()).build()
    const allowFirst = base.policy(allowAll(), denyTags("admin")).build()
    expect(denyFirst.ids()).toEqual(["github/create_issue", "jira/delete_issue"])
    expect(allowFirst.ids()).toEqual(["github/create_issue", "github/delete_repo", "jira/delete_issue"])
    // a policy cannot bring back a tool a filter removed
    expect(base.policy(allowAll()).build().has("github/search")).toBe(false)
    // with policies, undecided tools are denied
    expect(toolset("t").fromTools(catalog).policy(allowNamespaces("docs")).build().ids()).toEqual([
      "docs/search",
    ])
    expect(toolset("t").fromTools(catalog).policy(denyAll(), allowAll()).build().size).toBe(0)
    // no policy at all allows everything filtered
    expect(toolset("t").fromTools(catalog).build().size).toBe(catalog.length)
  })

  it("allows by scopes and leaves scope-less tools to the next policy", () => {
    const set = toolset("t")
      .fromTools(catalog)
      .policy(allowScopes(["jira:read"]), allowNamespaces("docs"))
      .build()
    expect(set.ids()).toEqual(["docs/search", "jira/get_issue"])
    const explained = toolset("t")
      .fromTools(catalog)
      .policy(allowScopes(["jira:read"]))
      .selection()
      .explain(catalog[5]!)
    expect(explained).toEqual({ admitted: false, decidedBy: "policy allowScopes(jira:read)" })
  })

  it("rejects missing sources, missing tools, malformed tools and conflicting ids with typed errors", () => {
    expect(() => toolset("t").build()).toThrow(ConfigError)
    try {
      toolset("t")
        .fromTools([catalog[0]!, null as unknown as Tool])
        .build()
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).path).toBe("toolset(t).sources[0][1]")
    }
    expect(() =>
      toolset("t")
        .fromTools([{ ...catalog[0]!, id: "no-slash" }])
        .build(),
    ).toThrow(InvalidTool)
    expect(() =>
      toolset("t")
        .fromTools([{ ...catalog[0]!, namespace: "other" }])
        .build(),
    ).toThrow(InvalidTool)
    expect(() =>
      toolset("t")
        .fromTools([catalog[0]!])
        .fromTools([{ ...catalog[0]! }])
        .build(),
    ).toThrow(ToolConflict)
    // the same object from two sources is not a conflict
    expect(toolset("t").fromTools([catalog[0]!]).fromTools([catalog[0]!]).build().size).toBe(1)
    expect(() => toolset("")).toThrow(ConfigError)
  })

  it("reads an index source at build time and returns an immutable snapshot", () => {
    const live = [...catalog]
    const builder = toolset("t").fromIndex({ list: () => live })
    live.pop()
    const set = builder.build()
    expect(set.size).toBe(catalog.length - 1)
    live.length = 0
    expect(set.size).toBe(catalog.length - 1)
    expect(Object.isFrozen(set.tools())).toBe(true)
    expect(Object.isFrozen(set.ids())).toBe(true)
    expect(() => (set.ids() as string[]).push("x/y")).toThrow(TypeError)
    expect(() => {
      ;(set as unknown as { name: string }).name = "changed"
    }).toThrow(TypeError)
    expect(set.get("docs/search")?.category).toBe("docs")
  })

  it("builders are immutable: adding a filter returns a new builder", () => {
    const base = toolset("t").fromTools(catalog)
    const narrowed = base.readOnly()
    expect(base.build().size).toBe(catalog.length)
    expect(narrowed.build().size).toBe(2)
  })

  const toolArb = fc
    .tuple(fc.constantFrom("a", "b", "zz", "Q"), fc.stringMatching(/^[a-z_][a-z0-9_.-]{0,6}$/))
    .map(([ns, name]) => plainTool(`${ns}/${name}`, { tags: name.length % 2 === 0 ? ["even"] : ["odd"] }))

  fcTest.prop([
    fc.uniqueArray(toolArb, { selector: (t) => t.id, maxLength: 30 }),
    fc.integer({ min: 1, max: 3 }),
  ])("ids and tools come back sorted and identical whatever the source order (property)", (tools, split) => {
    const shuffled = [...tools].reverse()
    const a = toolset("a")
      .fromTools(tools)
      .tags({ none: ["odd"] })
      .build()
    const b = toolset("b")
      .fromTools(shuffled.slice(0, split))
      .fromTools(shuffled.slice(split))
      .tags({ none: ["odd"] })
      .build()
    expect(a.ids()).toEqual(b.ids())
    expect(a.ids()).toEqual([...a.ids()].sort())
    expect(ids(a.tools())).toEqual(a.ids())
    expect(a.ids()).toEqual(
      tools
        .filter((t) => t.tags?.includes("even"))
        .map((t) => t.id)
        .sort(),
    )
  })
})
