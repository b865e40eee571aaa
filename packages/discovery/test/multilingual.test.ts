import { describe, expect, it } from "vitest"
import { type SearchableTool, Searcher, ToolIndex } from "../src/index.js"

const tool = (id: string, description: string, extra: Partial<SearchableTool> = {}): SearchableTool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, description, inputSchema: { type: "object" }, ...extra }
}

// Tool names say nothing useful here: the tools can only be found by their descriptions.
const catalog: SearchableTool[] = [
  tool("t1/a1", "查询指定城市的天气预报，包括温度和降雨概率"),
  tool("t1/a2", "删除文件系统中的指定文件"),
  tool("t1/a3", "读取文件内容并返回文本"),
  tool("t2/b1", "東京などの都市の天気を調べる"),
  tool("t2/b2", "カレンダーに予定を追加する"),
  tool("t2/b3", "メールを送信する"),
  tool("t3/c1", "Send an email message to a recipient"),
  tool("t3/c2", "Convert currency amounts between 货币 codes (汇率 exchange rates)"),
  tool("t3/c3", "ค้นหาสภาพอากาศของเมือง"),
]

const top = (s: Searcher, q: string, k = 1) =>
  s
    .search(q, { limit: k })
    .hits.map((h) => h.id)
    .slice(0, k)

describe("search in any language", () => {
  const index = new ToolIndex(catalog)
  const searcher = new Searcher(index)

  it("finds tools described only in Chinese by Chinese queries", () => {
    expect(top(searcher, "天气预报")).toEqual(["t1/a1"])
    expect(top(searcher, "明天北京的天气")).toEqual(["t1/a1"])
    expect(top(searcher, "删除文件")).toEqual(["t1/a2"])
    expect(top(searcher, "读取文件")).toEqual(["t1/a3"])
  })

  it("finds tools described only in Japanese by Japanese queries", () => {
    expect(top(searcher, "天気を調べる")).toEqual(["t2/b1"])
    expect(top(searcher, "予定を追加")).toEqual(["t2/b2"])
    expect(top(searcher, "メールを送信")).toEqual(["t2/b3"])
  })

  it("matches mixed-script descriptions and queries", () => {
    expect(top(searcher, "汇率 exchange")).toEqual(["t3/c2"])
    expect(top(searcher, "货币 convert")).toEqual(["t3/c2"])
    expect(top(searcher, "send email")).toEqual(["t3/c1"])
  })

  it("finds Thai descriptions by Thai queries", () => {
    expect(top(searcher, "สภาพอากาศ")).toEqual(["t3/c3"])
  })

  it("folds full-width forms: a full-width query finds the ASCII description", () => {
    expect(top(searcher, "ｓｅｎｄ ｅｍａｉｌ")).toEqual(["t3/c1"])
  })

  it("learns from Chinese intent examples", () => {
    const idx = new ToolIndex([
      ...catalog,
      tool("t4/d1", "Sends a short notice", { intents: ["给同事发一条通知", "提醒团队开会"] }),
    ])
    const s = new Searcher(idx)
    expect(top(s, "提醒团队")).toEqual(["t4/d1"])
  })
})
