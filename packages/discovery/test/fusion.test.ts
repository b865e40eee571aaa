import { describe, expect, it } from "vitest"
import {
  type Embedder,
  reciprocalRankFusion,
  SearchError,
  Searcher,
  ToolIndex,
  weightedScoreFusion,
} from "../src/index.js"
import { cosine } from "../src/rankFusion.js"

describe("fusion", () => {
  it("reciprocal rank fusion sums 1/(k + rank) and breaks ties by id", () => {
    const fused = reciprocalRankFusion(
      [
        [
          { id: "a", score: 9 },
          { id: "b", score: 5 },
        ],
        [
          { id: "b", score: 0.9 },
          { id: "c", score: 0.1 },
        ],
      ],
      { k: 60 },
    )
    expect(fused.map((h) => h.id)).toEqual(["b", "a", "c"])
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61)
    const tie = reciprocalRankFusion([[{ id: "z", score: 1 }], [{ id: "y", score: 1 }]])
    expect(tie.map((h) => h.id)).toEqual(["y", "z"])
  })
  it("weighted score fusion normalises each list", () => {
    const fused = weightedScoreFusion(
      [
        [
          { id: "a", score: 10 },
          { id: "b", score: 5 },
        ],
        [
          { id: "b", score: 2 },
          { id: "a", score: 0 },
        ],
      ],
      { weights: [0.5, 0.5] },
    )
    expect(fused).toEqual([
      { id: "b", score: 0.75 },
      { id: "a", score: 0.5 },
    ])
    const mm = weightedScoreFusion(
      [
        [
          { id: "a", score: 3 },
          { id: "b", score: 1 },
        ],
      ],
      { normalize: "minmax" },
    )
    expect(mm).toEqual([
      { id: "a", score: 1 },
      { id: "b", score: 0 },
    ])
  })
  it("cosine", () => {
    expect(cosine([1, 0], [0, 1])).toBe(0)
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1)
    expect(cosine([0, 0], [1, 1])).toBe(0)
  })
})

/** A toy embedder: bag of letters (deterministic, no model). */
const letters: Embedder = {
  async embed(texts) {
    return texts.map((t) => {
      const v = new Array<number>(26).fill(0)
      for (const c of t.toLowerCase()) {
        const i = c.charCodeAt(0) - 97
        if (i >= 0 && i < 26) v[i]!++
      }
      return v
    })
  },
}

describe("hybrid search", () => {
  const tools = [
    {
      id: "w/forecast",
      namespace: "w",
      name: "forecast",
      description: "weather forecast for a city",
      inputSchema: {},
    },
    { id: "m/send", namespace: "m", name: "send", description: "send an email", inputSchema: {} },
    { id: "z/zzz", namespace: "z", name: "zzz", description: "zzzz zzzz", inputSchema: {} },
  ]
  it("is off by default (searchAsync equals search)", async () => {
    const s = new Searcher(new ToolIndex(tools))
    expect(await s.searchAsync("weather")).toEqual(s.search("weather"))
  })
  it("fuses dense hits (rrf and weighted), embedding only new or changed tools", async () => {
    let embedded = 0
    const counting: Embedder = {
      embed: async (texts) => {
        embedded += texts.length
        return letters.embed(texts)
      },
    }
    const index = new ToolIndex(tools)
    const s = new Searcher(index, { hybrid: { embedder: counting } })
    const r = await s.searchAsync("zzzz", { limit: 3 })
    expect(r.hits[0]!.id).toBe("z/zzz")
    expect(embedded).toBe(4) // 3 tools + 1 query
    await s.searchAsync("weather")
    expect(embedded).toBe(5) // only the query
    const w = new Searcher(index, { hybrid: { embedder: letters, fusion: "weighted", weight: 1 } })
    const hits = (await w.searchAsync("zzz zz")).hits
    expect(hits[0]!.id).toBe("z/zzz")
  })
  it("reports embedder failures as SearchError", async () => {
    const broken: Embedder = { embed: async () => [] }
    const s = new Searcher(new ToolIndex(tools), { hybrid: { embedder: broken } })
    await expect(s.searchAsync("x")).rejects.toBeInstanceOf(SearchError)
  })
})
