import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { type SearchableTool, Searcher, ToolIndex } from "../src/index.js"

const WORDS = [
  "create",
  "issue",
  "list",
  "weather",
  "city",
  "send",
  "email",
  "report",
  "user",
  "file",
  "upload",
  "search",
]
const word = fc.constantFrom(...WORDS)
const text = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(" "))

const toolArb = fc.record({
  ns: fc.constantFrom("a", "b", "c"),
  name: fc.constantFrom("x", "y", "z", "w"),
  description: text,
  param: fc.option(word, { nil: undefined }),
  tags: fc.array(fc.constantFrom("read", "write"), { maxLength: 2 }),
  intents: fc.array(
    fc.constantFrom(
      "send the weekly report",
      "create a user",
      "weather in the city",
      "upload a file",
      "list issues",
    ),
    {
      maxLength: 3,
    },
  ),
})

type ToolSpec = typeof toolArb extends fc.Arbitrary<infer U> ? U : never

const toTool = (t: ToolSpec): SearchableTool => ({
  id: `${t.ns}/${t.name}`,
  namespace: t.ns,
  name: t.name,
  description: t.description,
  inputSchema:
    t.param === undefined
      ? {}
      : { type: "object", properties: { [t.param]: { type: "string", description: t.description } } },
  tags: t.tags,
  intents: t.intents,
})

const op = fc.oneof(
  fc.record({ kind: fc.constant("register" as const), tool: toolArb, source: fc.constantFrom("s1", "s2") }),
  fc.record({
    kind: fc.constant("unregister" as const),
    ns: fc.constantFrom("a", "b", "c"),
    name: fc.constantFrom("x", "y", "z", "w"),
  }),
  fc.record({ kind: fc.constant("dropSource" as const), source: fc.constantFrom("s1", "s2") }),
)

const QUERIES = [
  "create issue",
  "weather city report",
  "send email to user",
  "upload file",
  "list",
  "search weekly report",
]

describe("incremental updates", () => {
  test.prop([fc.array(op, { minLength: 1, maxLength: 40 })], { numRuns: 100 })(
    "produce exactly the same rankings as a full rebuild",
    (ops) => {
      const index = new ToolIndex()
      const incremental = new Searcher(index)
      const probe = new Searcher(index, { examples: false }) // a second live searcher
      for (const o of ops) {
        if (o.kind === "register") index.register(toTool(o.tool), { source: o.source })
        else if (o.kind === "unregister") index.unregister(`${o.ns}/${o.name}`)
        else index.unregisterSource(o.source)
        // query between updates, so that lazily refreshed caches are exercised too
        incremental.search(QUERIES[ops.indexOf(o) % QUERIES.length]!)
      }
      const rebuilt = new Searcher(new ToolIndex(index.list()))
      const rebuiltNoEx = new Searcher(new ToolIndex(index.list()), { examples: false })
      for (const q of QUERIES) {
        expect(incremental.search(q, { limit: 50 })).toEqual(rebuilt.search(q, { limit: 50 }))
        expect(probe.search(q, { limit: 50 })).toEqual(rebuiltNoEx.search(q, { limit: 50 }))
      }
      for (const t of index.list())
        expect(incremental.similar(t.id, { limit: 50 })).toEqual(rebuilt.similar(t.id, { limit: 50 }))
    },
  )
})
