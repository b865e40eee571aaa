import {
  type CursorCodec,
  ExpiredCursor,
  InvalidCursor,
  makeCursorCodec,
  randomCursorKey,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { type SearchableTool, SearchError, Searcher, type SearchResult, ToolIndex } from "../src/index.js"

const tools: SearchableTool[] = Array.from({ length: 40 }, (_, i) => ({
  id: `${i % 2 === 0 ? "even" : "odd"}/report_${String(i).padStart(2, "0")}`,
  namespace: i % 2 === 0 ? "even" : "odd",
  name: `report_${String(i).padStart(2, "0")}`,
  description: `Build the quarterly sales report number ${i}${i % 3 === 0 ? " with charts" : ""}`,
  inputSchema: { type: "object", properties: {} },
  tags: i % 4 === 0 ? ["pdf"] : [],
}))

const key = { kid: "k1", secret: "0123456789abcdef0123456789abcdef" }

const tamper = (cursor: string): string => {
  const parts = cursor.split(".")
  const payload = Buffer.from(parts[2]!, "base64url")
    .toString("utf8")
    .replace(/"x":\d+/, '"x":0')
  return [parts[0], parts[1], Buffer.from(payload).toString("base64url"), parts[3]].join(".")
}

const follow = (s: Searcher, query: string, options: { limit: number; caller?: string }) => {
  const ids: string[] = []
  let page: SearchResult = s.search(query, options)
  ids.push(...page.hits.map((h) => h.id))
  let pages = 1
  while (page.nextCursor !== undefined) {
    page = s.search(query, { ...options, cursor: page.nextCursor })
    ids.push(...page.hits.map((h) => h.id))
    pages++
  }
  return { ids, pages }
}

describe("search cursors", () => {
  it("pages through every hit with nextCursor, in the same order as offset paging", () => {
    const s = new Searcher(new ToolIndex(tools), { codec: makeCursorCodec({ keys: [key] }) })
    const all = s.search("quarterly sales report", { limit: 100 })
    expect(all.total).toBe(40)
    expect(all.nextCursor).toBeUndefined()
    const { ids, pages } = follow(s, "quarterly sales report", { limit: 7 })
    expect(pages).toBe(6)
    expect(ids).toEqual(all.hits.map((h) => h.id))
    // the page size may change between pages
    const p1 = s.search("quarterly sales report", { limit: 5 })
    const p2 = s.search("quarterly sales report", { limit: 30, cursor: p1.nextCursor! })
    expect(p2.offset).toBe(5)
    expect(p2.hits.map((h) => h.id)).toEqual(all.hits.slice(5, 35).map((h) => h.id))
    // offset keeps working
    expect(s.search("quarterly sales report", { limit: 5, offset: 5 }).hits).toEqual(p2.hits.slice(0, 5))
  })

  it("pages browse (empty query) and similar() results too", () => {
    const s = new Searcher(new ToolIndex(tools))
    const browse = follow(s, "", { limit: 9 })
    expect(browse.ids).toEqual(tools.map((t) => t.id).sort())
    const first = s.similar("even/report_00", { limit: 10 })
    expect(first.nextCursor).toBeTypeOf("string")
    const second = s.similar("even/report_00", { limit: 10, cursor: first.nextCursor! })
    expect(second.offset).toBe(10)
    expect(() => s.similar("even/report_02", { limit: 10, cursor: first.nextCursor! })).toThrow(InvalidCursor)
    expect(() => s.search("even/report_00", { limit: 10, cursor: first.nextCursor! })).toThrow(InvalidCursor)
  })

  it("rejects tampered, foreign, re-targeted and other callers' cursors with InvalidCursor", () => {
    const codec = makeCursorCodec({ keys: [key] })
    const s = new Searcher(new ToolIndex(tools), { codec })
    const p1 = s.search("sales report", { limit: 5, namespace: "even", caller: "alice" })
    const cursor = p1.nextCursor!
    expect(s.search("sales report", { limit: 5, namespace: "even", caller: "alice", cursor }).offset).toBe(5)
    const reject = (options: Parameters<Searcher["search"]>[1], query = "sales report") =>
      expect(() => s.search(query, options)).toThrow(InvalidCursor)
    reject({ namespace: "even", caller: "alice", cursor: tamper(cursor) })
    reject({ namespace: "even", caller: "alice", cursor: `${cursor.slice(0, -2)}xx` })
    reject({ namespace: "even", caller: "alice", cursor: "garbage" })
    reject({ namespace: "even", caller: "alice", cursor }, "another query")
    reject({ namespace: "odd", caller: "alice", cursor })
    reject({ namespace: "even", tags: ["pdf"], caller: "alice", cursor })
    reject({ namespace: "even", caller: "bob", cursor })
    reject({ namespace: "even", cursor })
    // signed by another key
    const other = new Searcher(new ToolIndex(tools), {
      codec: makeCursorCodec({ keys: [randomCursorKey("k1")] }),
    })
    expect(() => other.search("sales report", { namespace: "even", caller: "alice", cursor })).toThrow(
      InvalidCursor,
    )
    // a cursor of another purpose (a listing cursor from the same codec)
    const listing = codec.encode({ purpose: "tools/list" }, 5)
    reject({ cursor: listing })
    // a correctly signed cursor with a bad position
    const bad = codec.encode(
      { purpose: "search", caller: "alice", args: { q: "sales report", ns: "even" } },
      "five",
    )
    reject({ namespace: "even", caller: "alice", cursor: bad })
  })

  it("rejects expired cursors with ExpiredCursor", () => {
    let t = 1_000_000
    const codec = makeCursorCodec({ keys: [key], ttlMs: 1000, now: () => t })
    const s = new Searcher(new ToolIndex(tools), { codec })
    const cursor = s.search("report", { limit: 5 }).nextCursor!
    t += 999
    expect(s.search("report", { limit: 5, cursor }).offset).toBe(5)
    t += 1
    expect(() => s.search("report", { limit: 5, cursor })).toThrow(ExpiredCursor)
  })

  it("uses a per-process random key when no codec is given", () => {
    const a = new Searcher(new ToolIndex(tools))
    const b = new Searcher(new ToolIndex(tools))
    const cursor = a.search("report", { limit: 5 }).nextCursor!
    expect(b.search("report", { limit: 5, cursor }).offset).toBe(5)
    const keyed = new Searcher(new ToolIndex(tools), { codec: makeCursorCodec({ keys: [key] }) })
    expect(() => keyed.search("report", { limit: 5, cursor })).toThrow(InvalidCursor)
  })

  it("signs a cursor only when there is a next page and it is read", () => {
    let encoded = 0
    const inner = makeCursorCodec({ keys: [key] })
    const counting: CursorCodec = {
      encode: (binding, position) => {
        encoded++
        return inner.encode(binding, position)
      },
      decode: (cursor, expected) => inner.decode(cursor, expected),
    }
    const s = new Searcher(new ToolIndex(tools), { codec: counting })
    const page = s.search("report", { limit: 5 })
    expect(page.nextOffset).toBe(5)
    expect(encoded).toBe(0)
    const c1 = page.nextCursor
    const c2 = page.nextCursor
    expect(c1).toBe(c2)
    expect(encoded).toBe(1)
    expect(JSON.parse(JSON.stringify(page)).nextCursor).toBe(c1)
    const last = s.search("report", { limit: 100 })
    expect("nextCursor" in last).toBe(false)
    expect({ ...last }.nextCursor).toBeUndefined()
    expect(encoded).toBe(1)
  })

  it("rejects offset together with cursor, and a bad codec", () => {
    const s = new Searcher(new ToolIndex(tools))
    const cursor = s.search("report", { limit: 5 }).nextCursor!
    expect(() => s.search("report", { limit: 5, offset: 5, cursor })).toThrow(SearchError)
    expect(() => new Searcher(new ToolIndex(), { codec: {} as CursorCodec })).toThrow(SearchError)
  })

  it("binds hybrid (searchAsync) pages the same way", async () => {
    const embedder = { embed: async (texts: string[]) => texts.map((t) => [t.length, 1]) }
    const s = new Searcher(new ToolIndex(tools), { hybrid: { embedder } })
    const p1 = await s.searchAsync("sales report", { limit: 10 })
    expect(p1.nextCursor).toBeTypeOf("string")
    const p2 = await s.searchAsync("sales report", { limit: 10, cursor: p1.nextCursor! })
    expect(p2.offset).toBe(10)
    expect(p2.hits.map((h) => h.id)).not.toContain(p1.hits[0]!.id)
    await expect(s.searchAsync("other", { limit: 10, cursor: p1.nextCursor! })).rejects.toBeInstanceOf(
      InvalidCursor,
    )
  })
})
