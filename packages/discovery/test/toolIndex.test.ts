import { describe, expect, it } from "vitest"
import { type SearchableTool, SearchError, type ToolChangeEvent, ToolIndex } from "../src/index.js"

const tool = (id: string, extra: Partial<SearchableTool> = {}): SearchableTool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, inputSchema: { type: "object" }, ...extra }
}

describe("ToolIndex", () => {
  it("registers, gets by id, lists namespaces and sources", () => {
    const index = new ToolIndex()
    index.register(tool("github/create_issue"), { source: "gh" })
    index.register(tool("github/list_issues"), { source: "gh" })
    index.register(tool("slack/post_message"), { source: "slack" })
    expect(index.size).toBe(3)
    expect(index.get("github/create_issue")?.name).toBe("create_issue")
    expect(index.get("nope")).toBeUndefined()
    expect(index.namespaces()).toEqual(["github", "slack"])
    expect(index.namespaceSizes()).toEqual([
      { namespace: "github", count: 2 },
      { namespace: "slack", count: 1 },
    ])
    expect(index.sources()).toEqual(["gh", "slack"])
    expect(index.list({ namespace: "github" }).map((t) => t.id)).toEqual([
      "github/create_issue",
      "github/list_issues",
    ])
    expect(index.list({ source: "slack" }).map((t) => t.id)).toEqual(["slack/post_message"])
  })

  it("emits registered, updated and removed events (no event for identical re-registration)", () => {
    const index = new ToolIndex()
    const events: string[] = []
    const off = index.subscribe((e: ToolChangeEvent) => events.push(`${e.type}:${e.tool.id}`))
    index.register(tool("a/x"))
    expect(index.register(tool("a/x"))).toBe("unchanged")
    index.register(tool("a/x", { description: "changed" }))
    index.unregister("a/x")
    expect(index.unregister("a/x")).toBe(false)
    off()
    index.register(tool("a/y"))
    expect(events).toEqual(["registered:a/x", "updated:a/x", "removed:a/x"])
  })

  it("unregisters and replaces per source", () => {
    const index = new ToolIndex()
    index.registerAll([tool("a/x"), tool("a/y")], { source: "A" })
    index.register(tool("b/z"), { source: "B" })
    expect(index.replaceSource("A", [tool("a/y", { title: "Y" }), tool("a/w")])).toEqual({
      registered: 1,
      updated: 1,
      removed: 1,
    })
    expect(
      index
        .list({ source: "A" })
        .map((t) => t.id)
        .sort(),
    ).toEqual(["a/w", "a/y"])
    expect(index.unregisterSource("A")).toBe(2)
    expect(index.namespaces()).toEqual(["b"])
    expect(index.sources()).toEqual(["B"])
  })

  it("rejects invalid tools with a typed error", () => {
    const index = new ToolIndex()
    const bad = { id: "", namespace: "a", name: "b", inputSchema: {} } as SearchableTool
    expect(() => index.register(bad)).toThrow(SearchError)
    try {
      index.register({ id: "x", namespace: "a", name: "b" } as unknown as SearchableTool)
    } catch (e) {
      expect((e as SearchError)._tag).toBe("SearchError")
      expect((e as SearchError).code).toBe("InvalidTool")
    }
  })
})
