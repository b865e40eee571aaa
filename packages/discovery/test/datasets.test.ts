import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadJsonl, loadMetaTool, parseCsv } from "../bench/datasets.js"
import { buildSearcher, evaluate } from "../bench/evaluate.js"

const dir = mkdtempSync(join(tmpdir(), "discovery-datasets-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("benchmark datasets", () => {
  it("parses quoted CSV", () => {
    expect(parseCsv('Query,Tool\n"Hello, ""world""",A\r\nplain,B\n')).toEqual([
      ["Query", "Tool"],
      ['Hello, "world"', "A"],
      ["plain", "B"],
    ])
  })

  it("loads the MetaTool layout (tools, single- and two-tool queries) and evaluates it", () => {
    writeFileSync(
      join(dir, "plugin_des.json"),
      JSON.stringify({ WeatherTool: "Weather forecasts for any city", NewsTool: "Latest news headlines" }),
    )
    writeFileSync(
      join(dir, "all_clean_data.csv"),
      "Query,Tool\nwill it rain in Oslo,WeatherTool\nwhat is new today,NewsTool\n",
    )
    writeFileSync(
      join(dir, "multi_tool_query_golden.json"),
      JSON.stringify([{ query: "news and weather for Paris", tool: ["NewsTool", "WeatherTool"] }]),
    )
    const d = loadMetaTool(dir)
    expect(d.corpus.tools.size).toBe(2)
    expect(d.queries).toHaveLength(3)
    expect(d.qrels.get(d.queries[2]!.id)).toEqual(["NewsTool", "WeatherTool"])
    const m = evaluate(buildSearcher(d.corpus, new Map()), d.corpus, d.queries, d.qrels).result()
    expect(m.queries).toBe(3)
    expect(m["R@5"]).toBeGreaterThan(50)
  })

  it("loads the JSONL shape and names the bad line", () => {
    const tools = join(dir, "tools.jsonl")
    const queries = join(dir, "queries.jsonl")
    writeFileSync(tools, `${JSON.stringify({ id: "mail/send", description: "Send an email" })}\n`)
    writeFileSync(queries, `${JSON.stringify({ query: "email Bob", tools: ["mail/send"] })}\n`)
    const d = loadJsonl(tools, queries)
    expect(d.corpus.tools.get("mail/send")).toMatchObject({ namespace: "mail", name: "send" })
    writeFileSync(queries, `${JSON.stringify({ query: "email Bob", tools: ["mail/send"] })}\n{"query": 3}\n`)
    expect(() => loadJsonl(tools, queries)).toThrow(/queries\.jsonl:2/)
  })
})
