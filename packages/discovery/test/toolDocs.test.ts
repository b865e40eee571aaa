import { describe, expect, it } from "vitest"
import { describeTool, type SearchableTool, SearchError, summaryLine } from "../src/index.js"
import { capSchema, truncate } from "../src/toolDocs.js"

const big: SearchableTool = {
  id: "github/create_issue",
  namespace: "github",
  name: "create_issue",
  title: "Create issue",
  description: "Creates a new issue. Requires push access. Long explanation follows. ".repeat(40),
  inputSchema: {
    type: "object",
    required: ["repo", "title"],
    properties: Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `field_${i}`,
        {
          type: "string",
          description: `Description of field ${i}: `.repeat(10),
          examples: ["a", "b"],
          properties: { nested: { type: "string", description: "nested ".repeat(20) } },
        },
      ]),
    ),
  },
  intents: Array.from({ length: 12 }, (_, i) => `open a bug report number ${i}`),
  metadata: { notes: "Rate limited to 5000 requests per hour." },
}

describe("tool docs", () => {
  it("summary: id and one line, no schema", () => {
    const d = describeTool(big, "summary")
    expect(d).toEqual({
      level: "summary",
      id: "github/create_issue",
      summary: "Create issue: Creates a new issue.",
    })
    expect("inputSchema" in d).toBe(false)
  })
  it("schema: capped description and schema", () => {
    const d = describeTool(big, "schema", { schemaChars: 1500, descriptionChars: 200 })
    expect(d.description!.length).toBeLessThanOrEqual(200)
    expect(JSON.stringify(d.inputSchema).length).toBeLessThanOrEqual(1500)
    expect(d.truncated).toBe(true)
    expect("examples" in d).toBe(false)
  })
  it("full: examples (capped count), notes, truncation flag", () => {
    const d = describeTool(big, "full", { examples: 3 })
    expect(d.examples).toHaveLength(3)
    expect(d.notes).toBe("Rate limited to 5000 requests per hour.")
    expect(d.truncated).toBe(true)
    const small = describeTool(
      { id: "a/b", namespace: "a", name: "b", inputSchema: { type: "object" } },
      "full",
    )
    expect(small).toMatchObject({ level: "full", summary: "b", examples: [], truncated: false })
  })
  it("caps schemas progressively and keeps them valid JSON objects", () => {
    const schema = big.inputSchema
    for (const cap of [100_000, 5000, 2000, 600, 120]) {
      const r = capSchema(schema, cap)
      expect(JSON.stringify(r.schema).length).toBeLessThanOrEqual(cap)
      expect(r.truncated).toBe(cap < JSON.stringify(schema).length)
    }
    expect(capSchema(schema, 5000).schema).toHaveProperty("properties.field_0")
  })
  it("truncates on word boundaries and summarises", () => {
    expect(truncate("hello brave new world", 12)).toBe("hello brave…")
    expect(truncate("short", 10)).toBe("short")
    expect(
      summaryLine({ id: "x/y", namespace: "x", name: "y", description: "Does y. More.", inputSchema: {} }),
    ).toBe("y: Does y.")
  })
  it("rejects bad levels and caps", () => {
    expect(() => describeTool(big, "everything" as "full")).toThrow(SearchError)
    expect(() => describeTool(big, "schema", { schemaChars: -1 })).toThrow(SearchError)
  })
})
