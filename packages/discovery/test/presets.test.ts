import { describe, expect, it } from "vitest"
import { type SearchableTool, SearchError, Searcher, ToolIndex } from "../src/index.js"

const tool = (id: string, description: string, params: string[] = []): SearchableTool => {
  const [namespace, name] = id.split("/") as [string, string]
  return {
    id,
    namespace,
    name,
    description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(params.map((p) => [p, { type: "string" }])),
    },
  }
}

describe("presets and query-side weighting", () => {
  it("rejects an unknown preset and out-of-range weights with a SearchError naming the option", () => {
    expect(() => new Searcher(new ToolIndex(), { preset: "bm25" as never })).toThrow(SearchError)
    expect(() => new Searcher(new ToolIndex(), { preset: "bm25" as never })).toThrow(/preset/)
    expect(() => new Searcher(new ToolIndex(), { requestWordWeight: 2 })).toThrow(/requestWordWeight/)
    expect(() => new Searcher(new ToolIndex(), { examples: { stopWordWeight: -1 } })).toThrow(
      /examples\.stopWordWeight/,
    )
    expect(() => new Searcher(new ToolIndex(), { examples: { confidence: Number.NaN } })).toThrow(
      /examples\.confidence/,
    )
  })

  it("the toollens preset weighs parameter names far above tool names; the default less so", () => {
    const tools = [
      tool("a/city_lookup", "Looks up a place"),
      tool("b/op", "Does an operation", ["city", "country", "region", "zip"]),
    ]
    const toollens = new Searcher(new ToolIndex(tools), { preset: "toollens" })
    const def = new Searcher(new ToolIndex(tools))
    const ratio = (s: Searcher) => {
      const hits = s.search("city", { limit: 2 }).hits
      const a = hits.find((h) => h.id === "a/city_lookup")!.score
      const b = hits.find((h) => h.id === "b/op")!.score
      return a / b
    }
    expect(ratio(def)).toBeGreaterThan(ratio(toollens))
  })

  it("words of asking weigh less than words of the task", () => {
    const tools = [
      tool("x/helpdesk", "Open a help desk ticket"),
      tool("y/weather", "Weather forecast for a city"),
    ]
    const s = new Searcher(new ToolIndex(tools))
    expect(s.search("can you help me with the weather forecast", { limit: 2 }).hits[0]!.id).toBe("y/weather")
    const flat = new Searcher(new ToolIndex(tools), { requestWordWeight: 1 })
    const a = flat.search("help weather", { limit: 2 }).hits
    const b = s.search("help weather", { limit: 2 }).hits
    const share = (hits: { id: string; score: number }[]) =>
      hits.find((h) => h.id === "x/helpdesk")!.score / hits.find((h) => h.id === "y/weather")!.score
    expect(share(b)).toBeLessThan(share(a))
  })

  it("a visible predicate filters hits, totals and pages", () => {
    const tools = Array.from({ length: 6 }, (_, i) => tool(`ns/t${i}`, "send an email message"))
    const s = new Searcher(new ToolIndex(tools))
    const even = (id: string) => Number(id.slice(-1)) % 2 === 0
    const r = s.search("email", { limit: 2, visible: even })
    expect(r.total).toBe(3)
    expect(r.hits.every((h) => even(h.id))).toBe(true)
    const browse = s.search("", { limit: 10, visible: even })
    expect(browse.hits.map((h) => h.id)).toEqual(["ns/t0", "ns/t2", "ns/t4"])
    expect(() => s.search("email", { visible: "x" as never })).toThrow(SearchError)
  })
})
