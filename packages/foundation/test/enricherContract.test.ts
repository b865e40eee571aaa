/**
 * The enricher contract suite, run on a conforming enricher. The suite freezes what it hands an enricher;
 * the cases below show that a mutating enricher then fails (TypeError on the frozen input).
 */
import { describe, expect, it } from "vitest"
import { defineEnricher, makeTool } from "../src/index.js"
import { enricherContract } from "../src/testing/index.js"

const search = makeTool({
  id: "docs/search",
  category: "docs",
  inputSchema: { type: "object", properties: { q: { type: "string" }, apiKey: { type: "string" } } },
  exampleArgs: [{ q: "install" }],
})
const fetchTool = makeTool({ id: "docs/fetch", category: "docs" })

const conforming = () =>
  defineEnricher({
    name: "docs",
    categories: ["docs"],
    enrichSchema: (tool) => {
      const { apiKey: _key, ...properties } = tool.inputSchema.properties ?? {}
      return { ...tool, inputSchema: { ...tool.inputSchema, properties } }
    },
    transformArgs: (_id, args) => ({ ...args, apiKey: "k" }),
    valueModel: (id) =>
      id === "docs/search" ? { cost: 1, followUps: [{ toolId: "docs/fetch" }] } : undefined,
    projectArgs: (_prev, result, link) =>
      link.toolId === "docs/fetch" && Array.isArray(result)
        ? result.map((url) => ({ url: String(url) }))
        : undefined,
    rateLimitHost: () => "docs.example.com",
  })

enricherContract("a conforming enricher", conforming, {
  tools: [search, fetchTool],
  followUps: [
    {
      toolId: "docs/search",
      result: ["https://a", "https://b"],
      link: { toolId: "docs/fetch" },
      expected: [{ url: "https://a" }, { url: "https://b" }],
    },
  ],
})

describe("what the enricher contract rejects", () => {
  it("an enrichSchema that mutates its input throws on the frozen tool the suite passes", () => {
    const mutating = defineEnricher({
      name: "bad",
      categories: ["docs"],
      enrichSchema: (tool) => {
        ;(tool as { description?: string }).description = "changed"
        return tool
      },
    })
    const frozen = Object.freeze(structuredClone(search))
    expect(() => mutating.enrichSchema(frozen)).toThrow(TypeError)
  })

  it("a transformArgs that mutates its input throws on frozen arguments", () => {
    const mutating = defineEnricher({
      name: "bad",
      categories: ["docs"],
      transformArgs: (_id, args) => {
        ;(args as Record<string, unknown>).apiKey = "k"
        return args
      },
    })
    expect(() => mutating.transformArgs("docs/search", Object.freeze({ q: "x" }))).toThrow(TypeError)
  })
})
