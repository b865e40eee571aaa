import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { winkEngine } from "../bench/competitors.js"
import { loadMetaTool, METATOOL_DIR } from "../bench/datasets.js"
import { buildSearcher, crossValidate, evaluate, evaluateEngine, examplesOf } from "../bench/evaluate.js"
import {
  DEFAULT_DIR,
  loadCorpus,
  loadQrels,
  loadQueries,
  MetricAccumulator,
  parseToolLensText,
} from "../bench/toollens.js"

const fixture = (f: string) => new URL(`./fixtures/toollens-mini.${f}`, import.meta.url).pathname

describe("ToolLens harness (fixture)", () => {
  it("parses a ToolLens text into name, description, parameters and category", () => {
    const t = parseToolLensText(
      "3",
      'category_name:Transportation, tool_name:Travel Hacking Tool, api_name:Get Airline Details, api_description:Returns airline details by IATA code., required_params: [{"name": "code", "type": "STRING", "description": "IATA code"}], optional_params: [{"name": "lang", "type": "STRING", "description": ""}], return_schema: {"name": "str", "alliance": {"id": "int"}}',
    )
    expect(t).toMatchObject({
      namespace: "travel_hacking_tool",
      name: "Get Airline Details",
      title: "Travel Hacking Tool",
      description: "Returns airline details by IATA code.",
      category: "Transportation",
      inputSchema: {
        type: "object",
        properties: { code: { type: "string", description: "IATA code" }, lang: { type: "string" } },
        required: ["code"],
      },
      outputSchema: { type: "object", properties: { name: { type: "str" }, alliance: { type: "object" } } },
    })
  })

  it("computes COLT metrics (R@K, N@K, C@K)", () => {
    const m = new MetricAccumulator()
    m.add(["a", "x", "b", "y", "c"], ["a", "b", "c"])
    const r = m.result()
    expect(r["R@3"]).toBeCloseTo(66.67, 1)
    expect(r["R@5"]).toBe(100)
    expect(r["C@3"]).toBe(0)
    expect(r["C@5"]).toBe(100)
    const ideal = 1 + 1 / Math.log2(3) + 1 / Math.log2(4)
    expect(r["N@5"]).toBeCloseTo((100 * (1 + 1 / Math.log2(4) + 1 / Math.log2(6))) / ideal, 1)
  })

  it("evaluates zero-shot and with examples on the fixture", () => {
    const corpus = loadCorpus(fixture("corpus.jsonl"))
    const queries = loadQueries(fixture("queries.jsonl"))
    const qrels = loadQrels(fixture("qrels.tsv"))
    expect(corpus.tools.size).toBe(5)
    const zs = evaluate(buildSearcher(corpus, new Map()), corpus, queries, qrels).result()
    expect(zs.queries).toBe(6)
    expect(zs["N@5"]).toBeGreaterThan(50)
    const train = queries.filter((q) => ["q1", "q2", "q3"].includes(q.id))
    const test = queries.filter((q) => !["q1", "q2", "q3"].includes(q.id))
    const withEx = evaluate(buildSearcher(corpus, examplesOf(train, qrels)), corpus, test, qrels).result()
    expect(withEx["R@5"]).toBe(100)
    expect(crossValidate(corpus, queries, qrels, 2).queries).toBe(6)
  })
})

const real = `${DEFAULT_DIR}corpus.jsonl`
describe.skipIf(!existsSync(real))("ToolLens training split (skipped when ../shared is absent)", () => {
  it("beats the published BM25 zero-shot and uses examples well (subsample)", () => {
    const corpus = loadCorpus(real)
    const queries = loadQueries(`${DEFAULT_DIR}train.queries.jsonl`)
    const qrels = loadQrels(`${DEFAULT_DIR}train.qrels.tsv`)
    const sample = queries.filter((_, i) => i % 20 === 0)
    const zs = evaluate(buildSearcher(corpus, new Map()), corpus, sample, qrels).result()
    expect(zs["N@5"]).toBeGreaterThan(34)
    const train = queries.filter((_, i) => i % 20 !== 0)
    const ex = evaluate(buildSearcher(corpus, examplesOf(train, qrels)), corpus, sample, qrels).result()
    expect(ex["N@5"]).toBeGreaterThan(88)
    // ~5 s alone; the timeout only guards against a hang on a machine shared with other jobs
  }, 180_000)
})

describe.skipIf(!existsSync(`${METATOOL_DIR}plugin_des.json`))(
  "MetaTool (skipped when ../shared is absent)",
  () => {
    it("beats wink-bm25-text-search zero-shot and uses examples well (subsample)", async () => {
      const d = loadMetaTool()
      const sample = d.queries.filter((_, i) => i % 20 === 0)
      const zs = evaluate(buildSearcher(d.corpus, new Map()), d.corpus, sample, d.qrels).result()
      const wink = await evaluateEngine(winkEngine(), d.corpus, sample, d.qrels)
      expect(zs["N@5"]).toBeGreaterThan(wink["N@5"] * 1.05)
      const train = d.queries.filter((_, i) => i % 20 !== 0)
      const ex = evaluate(
        buildSearcher(d.corpus, examplesOf(train, d.qrels)),
        d.corpus,
        sample,
        d.qrels,
      ).result()
      expect(ex["N@5"]).toBeGreaterThan(80)
      // ~7 s alone; the timeout only guards against a hang on a machine shared with other jobs
    }, 180_000)
  },
)
