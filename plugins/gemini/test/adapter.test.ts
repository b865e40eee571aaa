import { ConversionFailed, makeTool, type Tool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { geminiAdapter, toGeminiTools } from "../src/index.js"
import { declarationViolations } from "./geminiChecker.js"

describe("toGeminiTools", () => {
  const tool = makeTool({
    id: "repo/create_issue",
    title: "Create issue",
    inputSchema: {
      type: "object",
      properties: {
        "issue-title": { type: "string" },
        labels: { type: "object", additionalProperties: { type: "string" } },
      },
      required: ["issue-title"],
    },
    outputSchema: { type: "object", properties: { number: { type: "integer" } } },
    annotations: { readOnlyHint: false },
    exampleArgs: [{ "issue-title": "Crash on start", labels: { area: "ui" } }, { "issue-title": "Typo" }],
  })

  it("puts the first example on the root in Gemini's names, and warns for what it drops", () => {
    const set = toGeminiTools([tool])
    const d = set.declarations[0]!
    expect(declarationViolations(d)).toEqual([])
    expect(d.description).toBe("Create issue")
    expect(d.parameters!.example).toEqual({ issue_title: "Crash on start", labels: '{"area":"ui"}' })
    expect(set.warnings.map((w) => w.feature).sort()).toEqual([
      "additionalProperties",
      "annotations",
      "exampleArgs",
      "outputSchema",
      "propertyName",
    ])
  })

  it("jsonSchema mode keeps the schema and adds the examples", () => {
    const d = toGeminiTools([tool], { schema: "jsonSchema" }).declarations[0]!
    expect(d.parameters).toBeUndefined()
    expect(d.parametersJsonSchema).toEqual({ ...tool.inputSchema, examples: tool.exampleArgs })
  })

  it("skips a tool without an object input schema with a warning; the adapter throws ConversionFailed for it", () => {
    const bad = { id: "x/bad", namespace: "x", name: "bad", inputSchema: { type: "array" } } as Tool
    const set = toGeminiTools([bad, tool])
    expect(set.declarations.map((d) => d.name)).toEqual(["repo__create_issue"])
    const adapter = geminiAdapter()
    expect(() => adapter.fromCanonical(bad)).toThrow(ConversionFailed)
    expect(adapter.toCanonical({ name: "lookup" }).id).toBe("gemini/lookup")
    expect(adapter.supportsFeature("$ref")).toBe(false)
    expect(adapter.supportsFeature("format:date-time")).toBe(true)
    expect(geminiAdapter({ schema: "jsonSchema" }).supportsFeature("$ref")).toBe(true)
  })
})
