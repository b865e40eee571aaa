import { describe, expect, it } from "vitest"
import { makeTool, planToolExport, type Tool } from "../src/index.js"

const raw = (fields: Record<string, unknown>) => fields as unknown as Tool

describe("planToolExport", () => {
  const tools: Tool[] = [
    makeTool({ id: "weather/current", inputSchema: { type: "object" } }),
    makeTool({ id: "weather/current", description: "a duplicate id", inputSchema: { type: "object" } }),
    raw({ name: "no id" }),
    makeTool({
      id: "fs/read.file",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      outputSchema: { type: "object" },
    }),
    raw({ id: "a/b.c", namespace: "a", name: "b.c", inputSchema: { type: "string" } }),
    raw({
      id: "a/b_c",
      namespace: "a",
      name: "b_c",
      inputSchema: { type: "object" },
      annotations: { title: null },
    }),
    raw({ id: "9ns/x", namespace: "9ns", name: "x", inputSchema: "nope" }),
  ]

  it("takes each tool once, names them and says what each loses", () => {
    const plan = planToolExport(tools, {
      to: "somewhere",
      nameRule: "names are [a-zA-Z0-9_-]",
      unsupported: { annotations: "no hints here", outputSchema: "no output schemas here" },
    })
    expect(plan.entries.map((e) => e.tool.id)).toEqual([
      "weather/current",
      "fs/read.file",
      "a/b.c",
      "a/b_c",
      "9ns/x",
    ])
    for (const e of plan.entries) expect(plan.names.idOf(e.name)).toBe(e.tool.id)
    expect(plan.entries[1]!.name).toBe("fs__read_file")
    // "a/b.c" and "a/b_c" have the same readable form: both are hashed
    expect(plan.names.nameOf("a/b.c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(plan.names.nameOf("a/b_c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(plan.warnings).toEqual([
      {
        feature: "tool",
        path: "/2",
        from: "canonical",
        to: "somewhere",
        message: "not a tool (no id); skipped",
      },
    ])
    const about = (id: string) => plan.entries.find((e) => e.tool.id === id)!.warnings.map((w) => w.feature)
    expect(about("weather/current")).toEqual([])
    expect(about("fs/read.file")).toEqual(["name", "annotations", "outputSchema"])
    // null hints count as absent
    expect(about("a/b_c")).toEqual(["name"])
    const read = plan.entries.find((e) => e.tool.id === "fs/read.file")!.warnings
    expect(read[0]).toMatchObject({
      toolId: "fs/read.file",
      path: "/id",
      to: "somewhere",
      message: 'renamed to "fs__read_file" (sanitized): names are [a-zA-Z0-9_-]',
    })
    expect(read[2]).toMatchObject({ path: "/outputSchema", message: "no output schemas here" })
  })

  it("objectSchemasOnly leaves out other schemas before naming; nameRules apply", () => {
    const plan = planToolExport(tools, { to: "t", objectSchemasOnly: true, nameRules: { letterFirst: true } })
    expect(plan.entries.map((e) => e.tool.id)).toEqual(["weather/current", "fs/read.file", "a/b_c"])
    // "a/b.c" was left out, so "a/b_c" keeps its readable name
    expect(plan.names.nameOf("a/b_c")).toBe("a__b_c")
    expect(plan.warnings.map((w) => [w.feature, w.toolId, w.path])).toEqual([
      ["tool", undefined, "/2"],
      ["inputSchema", "a/b.c", "/inputSchema/type"],
      ["inputSchema", "9ns/x", "/inputSchema"],
    ])
    expect(plan.warnings[1]!.message).toMatch(/got type "string"; the tool was skipped/)
    // no rule text and no unsupported fields configured: a plain rename warning, nothing else
    expect(plan.entries[1]!.warnings.map((w) => w.message)).toEqual([
      'renamed to "fs__read_file" (sanitized)',
    ])
  })
})
