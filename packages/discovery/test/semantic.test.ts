import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { type SearchableTool, SearchError, Searcher, ToolIndex } from "../src/index.js"
import { parseWordVectors } from "../src/internal/wordVectors.js"

const tool = (id: string, description: string): SearchableTool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, description, inputSchema: { type: "object" } }
}

const catalog = [
  tool("fin/market_data", "Stock quotes, exchange rates and market prices for investors"),
  tool("wx/forecast", "Weather forecast: temperature, rain and wind for a city"),
  tool("food/recipes", "Find cooking recipes by ingredient and cuisine"),
  tool("travel/flights", "Search airline flights and airports between two places"),
]

describe("semantic channel (bundled word vectors)", () => {
  it("finds a tool whose text shares no word with the query", () => {
    const on = new Searcher(new ToolIndex(catalog), { semantic: { weight: 0.5 } })
    const off = new Searcher(new ToolIndex(catalog), { semantic: false })
    // no word of these queries occurs in any tool's text
    expect(off.search("bitcoin currency trading", { limit: 4 }).hits).toEqual([])
    expect(on.search("bitcoin currency trading", { limit: 4 }).hits[0]!.id).toBe("fin/market_data")
    expect(on.search("is it going to snow tomorrow", { limit: 4 }).hits[0]!.id).toBe("wx/forecast")
    expect(on.search("pasta dinner ideas", { limit: 4 }).hits[0]!.id).toBe("food/recipes")
    expect(on.search("cheap plane tickets", { limit: 4 }).hits[0]!.id).toBe("travel/flights")
  })

  it("does not overturn a clear lexical match", () => {
    const s = new Searcher(new ToolIndex(catalog))
    expect(s.search("weather forecast", { limit: 1 }).hits[0]!.id).toBe("wx/forecast")
    expect(s.search("recipes", { limit: 1 }).hits[0]!.id).toBe("food/recipes")
  })

  it("follows the index incrementally and respects the caller's visibility", () => {
    const index = new ToolIndex(catalog)
    const s = new Searcher(index, { semantic: { weight: 0.5 } })
    expect(s.search("bitcoin currency trading", { limit: 1 }).hits[0]!.id).toBe("fin/market_data")
    const hidden = s.search("bitcoin currency trading", {
      limit: 4,
      visible: (id) => id !== "fin/market_data",
    }).hits
    expect(hidden.map((h) => h.id)).not.toContain("fin/market_data")
    index.unregister("fin/market_data")
    expect(s.search("bitcoin currency trading", { limit: 4 }).hits.map((h) => h.id)).not.toContain(
      "fin/market_data",
    )
    index.register(tool("crypto/wallet", "Wallet for coins and tokens: buy, sell and transfer funds"))
    expect(s.search("bitcoin currency trading", { limit: 1 }).hits[0]!.id).toBe("crypto/wallet")
  })

  it("re-ranks only the best lexical hits of a catalog larger than scan", () => {
    const filler = Array.from({ length: 30 }, (_, i) => tool(`f/t${i}`, `Generic utility number ${i}`))
    const small = new Searcher(new ToolIndex([...catalog, ...filler]), {
      semantic: { weight: 0.5, scan: 10 },
    })
    // 34 tools > scan: no lexical hit, nothing to re-rank
    expect(small.search("bitcoin currency trading", { limit: 4 }).hits).toEqual([])
    // a lexical hit list is re-ranked: "market" and "weather" both match one word, semantics decide
    const hits = small.search("bitcoin market weather", { limit: 2 }).hits.map((h) => h.id)
    expect(hits[0]).toBe("fin/market_data")
  })

  it("validates its options and its data file", () => {
    expect(() => new Searcher(new ToolIndex(), { semantic: { weight: -1 } })).toThrow(/semantic\.weight/)
    expect(() => new Searcher(new ToolIndex(), { semantic: { scan: 1 } })).toThrow(SearchError)
    expect(() => parseWordVectors(new Uint8Array(8), "x.bin")).toThrow(/x\.bin: too short/)
    const bytes = new Uint8Array(readFileSync(new URL("../data/wordVectors.bin", import.meta.url)))
    expect(() => parseWordVectors(bytes.subarray(0, bytes.length - 1), "cut.bin")).toThrow(
      /cut\.bin: truncated/,
    )
    const v = parseWordVectors(bytes, "ok")
    expect(v.size).toBe(30_000)
    expect(v.dimensions).toBe(100)
  })
})

describe("pseudo-relevance feedback (off by default)", () => {
  it("adds the top tools' other terms to the query", () => {
    const tools = [
      tool("a/geocode", "Geocode an address into latitude and longitude coordinates"),
      tool("b/reverse", "Turn latitude longitude coordinates back into a street address"),
      tool("c/elevation", "Elevation above sea level at coordinates"),
      tool("d/notes", "Write a note"),
    ]
    const plain = new Searcher(new ToolIndex(tools), { semantic: false })
    const fb = new Searcher(new ToolIndex(tools), { semantic: false, feedback: { weight: 0.5, docs: 1 } })
    // "geocode" matches only a/geocode; its other terms (coordinates, latitude, ...) bring in the others
    expect(plain.search("geocode", { limit: 4 }).hits.map((h) => h.id)).toEqual(["a/geocode"])
    const ids = fb.search("geocode", { limit: 4 }).hits.map((h) => h.id)
    expect(ids[0]).toBe("a/geocode")
    expect(ids).toContain("b/reverse")
    expect(ids).not.toContain("d/notes")
    expect(() => new Searcher(new ToolIndex(), { feedback: { docs: 1.5 } })).toThrow(/feedback/)
  })
})
