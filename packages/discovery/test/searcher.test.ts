import { describe, expect, it } from "vitest"
import { type SearchableTool, SearchError, Searcher, ToolIndex } from "../src/index.js"

const mk = (id: string, description: string, extra: Partial<SearchableTool> = {}): SearchableTool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, description, inputSchema: { type: "object", properties: {} }, ...extra }
}

const catalog: SearchableTool[] = [
  mk("github/create_issue", "Create a new issue in a repository", {
    tags: ["write", "vcs"],
    category: "dev",
    inputSchema: {
      type: "object",
      properties: {
        repo: { type: "string", description: "owner/name of the repository" },
        title: { type: "string" },
      },
    },
  }),
  mk("github/list_issues", "List issues of a repository", { tags: ["read", "vcs"], category: "dev" }),
  mk("gitlab/create_issue", "Create a new issue in a project", { tags: ["write", "vcs"], category: "dev" }),
  mk("slack/post_message", "Post a message to a channel", { tags: ["write"], category: "chat" }),
  mk("weather/forecast", "Weather forecast for a city", {
    category: "data",
    inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } },
  }),
  mk("weather/current", "Current weather conditions for a city", { category: "data" }),
]

describe("Searcher", () => {
  it("ranks by BM25F over names, descriptions and parameters", () => {
    const s = new Searcher(new ToolIndex(catalog))
    expect(s.search("create issue").hits[0]!.id).toMatch(/create_issue$/)
    expect(s.search("forecast").hits[0]!.id).toBe("weather/forecast")
    expect(s.search("post message slack").hits[0]!.id).toBe("slack/post_message")
    // parameter description (nested in the input schema)
    expect(s.search("owner of the repository").hits[0]!.id).toBe("github/create_issue")
  })

  it("is deterministic: ties are broken by id, independent of registration order", () => {
    const a = new Searcher(new ToolIndex(catalog))
    const b = new Searcher(new ToolIndex([...catalog].reverse()))
    for (const q of ["create issue", "weather city", "issue", "message"]) {
      expect(a.search(q, { limit: 20 })).toEqual(b.search(q, { limit: 20 }))
      expect(a.search(q, { limit: 20 })).toEqual(a.search(q, { limit: 20 }))
    }
    // github/create_issue and gitlab/create_issue have the same name: the tie goes to the smaller id
    const dup = new Searcher(
      new ToolIndex([
        mk("b/same", "identical text"),
        mk("a/same", "identical text"),
        mk("c/same", "identical text"),
      ]),
    )
    const hits = dup.search("identical").hits
    expect(hits.map((h) => h.id)).toEqual(["a/same", "b/same", "c/same"])
    expect(new Set(hits.map((h) => h.score)).size).toBe(1)
  })

  it("filters by namespace, tags and category", () => {
    const s = new Searcher(new ToolIndex(catalog))
    expect(s.search("issue", { namespace: "gitlab" }).hits.map((h) => h.id)).toEqual(["gitlab/create_issue"])
    expect(s.search("issue", { namespace: ["gitlab", "github"] }).total).toBe(3)
    expect(s.search("issue", { tags: ["read"] }).hits.map((h) => h.id)).toEqual(["github/list_issues"])
    expect(s.search("issue", { tags: ["write", "vcs"] }).total).toBe(2)
    expect(s.search("city", { category: "data" }).total).toBe(2)
    expect(s.search("city", { category: "chat" }).total).toBe(0)
  })

  it("paginates with offset and limit, reporting the total", () => {
    const s = new Searcher(new ToolIndex(catalog))
    const all = s.search("issue repository project", { limit: 10 })
    expect(all.total).toBe(3)
    const p1 = s.search("issue repository project", { limit: 2 })
    const p2 = s.search("issue repository project", { limit: 2, offset: 2 })
    expect(p1.nextOffset).toBe(2)
    expect(p2.nextOffset).toBeUndefined()
    expect([...p1.hits, ...p2.hits]).toEqual(all.hits)
  })

  it("lists tools by id for an empty query", () => {
    const s = new Searcher(new ToolIndex(catalog))
    const r = s.search("   the   ", { namespace: "weather" })
    expect(r.hits).toEqual([
      { id: "weather/current", score: 0 },
      { id: "weather/forecast", score: 0 },
    ])
    expect(r.total).toBe(2)
  })

  it("finds similar tools (excluding the tool itself) and rejects unknown ids", () => {
    const s = new Searcher(new ToolIndex(catalog))
    const sim = s.similar("weather/forecast").hits.map((h) => h.id)
    expect(sim[0]).toBe("weather/current")
    expect(sim).not.toContain("weather/forecast")
    expect(() => s.similar("nope/nope")).toThrow(SearchError)
    try {
      s.similar("nope/nope")
    } catch (e) {
      expect((e as SearchError)._tag).toBe("SearchError")
      expect((e as SearchError).code).toBe("UnknownTool")
    }
  })

  it("rejects bad options with typed errors", () => {
    const s = new Searcher(new ToolIndex(catalog))
    expect(() => s.search("x", { limit: -1 })).toThrow(SearchError)
    expect(() => s.search("x", { offset: 1.5 })).toThrow(SearchError)
    expect(() => s.search("x", { tags: "write" as unknown as string[] })).toThrow(SearchError)
    expect(() => new Searcher(new ToolIndex(), { k1: -1 })).toThrow(SearchError)
    expect(() => new Searcher(new ToolIndex(), { b: 2 })).toThrow(SearchError)
    expect(() => new Searcher(new ToolIndex(), { examples: { weight: 3 } })).toThrow(SearchError)
  })

  it("follows index changes", () => {
    const index = new ToolIndex(catalog)
    const s = new Searcher(index)
    expect(s.search("kubernetes").total).toBe(0)
    index.register(mk("k8s/apply", "Apply a kubernetes manifest"))
    expect(s.search("kubernetes").hits[0]!.id).toBe("k8s/apply")
    index.register(mk("k8s/apply", "Apply a helm chart"))
    expect(s.search("kubernetes").total).toBe(0)
    expect(s.search("helm").hits[0]!.id).toBe("k8s/apply")
    index.unregister("k8s/apply")
    expect(s.search("helm").total).toBe(0)
    s.dispose()
    index.register(mk("k8s/apply", "Apply a helm chart"))
    expect(s.search("helm").total).toBe(0)
  })

  it("uses intent examples: a deployment with examples ranks far better", () => {
    // tool docs say nothing about the users' words; the examples do
    const tools = [
      mk("cal/create_event", "Insert an entry", {
        intents: ["book a meeting with Anna tomorrow", "schedule a call"],
      }),
      mk("mail/send", "Deliver a payload", {
        intents: ["email the report to Bob", "send a note to the team"],
      }),
      mk("crm/add_contact", "Insert a record", { intents: ["save this person's phone number"] }),
    ]
    const withExamples = new Searcher(new ToolIndex(tools))
    // lexically, no word of the query is in a tool's doc (the semantic channel is left out here)
    const without = new Searcher(new ToolIndex(tools.map(({ intents: _, ...t }) => t)), { semantic: false })
    expect(without.search("book a meeting").total).toBe(0)
    expect(withExamples.search("book a meeting with Bob").hits[0]!.id).toBe("cal/create_event")
    expect(withExamples.search("email the slides").hits[0]!.id).toBe("mail/send")
    expect(withExamples.search("phone number of this person").hits[0]!.id).toBe("crm/add_contact")
  })

  it("lets a multi-tool example vote for all of its tools", () => {
    const shared = "plan a trip: find flights and a hotel in Rome"
    const tools = [
      mk("air/search", "Search flights", { intents: [shared] }),
      mk("hotel/search", "Search hotels", { intents: [shared] }),
      mk("car/rent", "Rent a car", { intents: ["rent a car at the airport"] }),
    ]
    const s = new Searcher(new ToolIndex(tools))
    const top2 = s.search("plan a trip to Rome", { limit: 2 }).hits.map((h) => h.id)
    expect(top2.sort()).toEqual(["air/search", "hotel/search"])
  })

  it("describes tools at three levels", () => {
    const s = new Searcher(new ToolIndex(catalog))
    expect(s.describe("github/create_issue")).toEqual({
      level: "summary",
      id: "github/create_issue",
      summary: "create_issue: Create a new issue in a repository",
    })
    expect(s.describe("github/create_issue", "schema")).toMatchObject({ inputSchema: { type: "object" } })
    expect(() => s.describe("x/y")).toThrow(SearchError)
  })
})
