import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import {
  InvalidTool,
  makeTool,
  normalizeTag,
  normalizeTags,
  renameTool,
  type Tool,
  toolDescription,
} from "../src/index.js"

const invalid = (fn: () => unknown): InvalidTool => {
  try {
    fn()
  } catch (error) {
    if (error instanceof InvalidTool) return error
    throw error
  }
  throw new Error("expected InvalidTool")
}

describe("makeTool", () => {
  it("builds a tool from id or namespace + name, with an empty object schema by default", () => {
    const a = makeTool({ id: "demo/ping" })
    const b = makeTool({ namespace: "demo", name: "ping" })
    expect(a).toEqual(b)
    expect(a.inputSchema).toEqual({ type: "object", properties: {} })
  })

  it("normalizes tags and intents", () => {
    const tool = makeTool({
      id: "demo/x",
      tags: ["Read Only", "read_only", " ", "Files"],
      intents: [" find a file ", ""],
    })
    expect(tool.tags).toEqual(["read-only", "files"])
    expect(tool.intents).toEqual(["find a file"])
  })

  it("names the offending field", () => {
    expect(invalid(() => makeTool({ id: "demo/x", version: "1.0" })).path).toBe("version")
    expect(invalid(() => makeTool({ id: "demo/x", inputSchema: { type: "string" } })).path).toBe(
      "inputSchema",
    )
    expect(
      invalid(() =>
        makeTool({ id: "demo/x", inputSchema: { type: "object", properties: { a: { type: 12 } } } as never }),
      ).path,
    ).toBe("inputSchema")
    expect(invalid(() => makeTool({ id: "demo/x", timeoutMs: -1 })).path).toBe("timeoutMs")
    const e = invalid(() =>
      makeTool({
        id: "demo/x",
        inputSchema: { type: "object", properties: { n: { type: "number" } } },
        exampleArgs: [{ n: 1 }, { n: "one" }],
      }),
    )
    expect(e.path).toBe("exampleArgs[1]")
    expect(e.message).toContain("/n")
  })

  it("accepts semver versions and keeps metadata", () => {
    const tool = makeTool({ id: "demo/x", version: "1.2.3-beta.1+build.5", metadata: { owner: "me" } })
    expect(tool.version).toBe("1.2.3-beta.1+build.5")
    expect(tool.metadata).toEqual({ owner: "me" })
  })

  it("renames", () => {
    const tool = renameTool(makeTool({ id: "demo/x" }), "other/y")
    expect([tool.id, tool.namespace, tool.name]).toEqual(["other/y", "other", "y"])
  })
})

describe("tags", () => {
  it("normalizes case, separators and symbols", () => {
    expect(normalizeTag("  Read Only_Tools ")).toBe("read-only-tools")
    expect(normalizeTag("Café!")).toBe("cafe")
    expect(normalizeTag("--a--b--")).toBe("a-b")
  })

  test.prop([fc.string()])("normalization is idempotent", (tag) => {
    const once = normalizeTag(tag)
    expect(normalizeTag(once)).toBe(once)
    expect(once).toMatch(/^([a-z0-9]([a-z0-9:.-]*[a-z0-9])?)?$/)
  })

  test.prop([fc.array(fc.string())])("normalizeTags yields unique, non-empty, normalized tags", (tags) => {
    const out = normalizeTags(tags)
    expect(new Set(out).size).toBe(out.length)
    for (const t of out) {
      expect(t).not.toBe("")
      expect(normalizeTag(t)).toBe(t)
    }
    expect(normalizeTags(out)).toEqual(out)
  })
})

describe("toolDescription", () => {
  const base = { id: "crm/find", namespace: "crm", name: "find", inputSchema: { type: "object" } }
  it("prefers the description, then the title, then the annotations' title", () => {
    expect(
      toolDescription(
        makeTool({ id: "crm/find", description: "D", title: "T", annotations: { title: "A" } }),
      ),
    ).toBe("D")
    expect(toolDescription(makeTool({ id: "crm/find", title: "T", annotations: { title: "A" } }))).toBe("T")
    expect(toolDescription(makeTool({ id: "crm/find", annotations: { title: "A" } }))).toBe("A")
    expect(toolDescription(makeTool({ id: "crm/find" }))).toBeUndefined()
  })

  it("skips empty strings and the nulls some servers send", () => {
    const wire = { ...base, description: "", title: null, annotations: { title: "A" } } as unknown as Tool
    expect(toolDescription(wire)).toBe("A")
    expect(
      toolDescription({ ...base, description: null, annotations: null } as unknown as Tool),
    ).toBeUndefined()
    expect(toolDescription({ ...base, annotations: { title: 3 } } as unknown as Tool)).toBeUndefined()
  })
})
