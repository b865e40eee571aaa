/**
 * Tool-list changes: every cached listing in the stack is dropped when the `changes` hook fires, so a
 * client that re-lists right after `notifications/tools/list_changed` sees the new list and can call a
 * newly added tool (before, every layer served its cached listing for `listingTtlMs`).
 */

import { searchMode } from "@toolplane/discovery"
import { listAllTools, type ToolDefinition, ToolNotFound, type ToolService } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { gatewayStack, toolset } from "../src/index.js"
import { bareService, testCodec } from "./support/bareService.js"
import { allDefinitions, echo } from "./support/fixtures.js"

/** A service whose tool list can change, and a change hook like `runner.registry.onChange`. */
const mutable = (initial: readonly ToolDefinition<any>[]) => {
  let definitions = [...initial]
  let current = bareService(definitions)
  const listeners = new Set<() => void>()
  let lists = 0
  const service: ToolService = {
    listTools: (request) => {
      lists++
      return current.listTools(request)
    },
    callTool: (request) => current.callTool(request),
  }
  return {
    service,
    lists: () => lists,
    /** Replaces the tool list (the inner service sees it at once) without notifying. */
    set(next: readonly ToolDefinition<any>[]) {
      definitions = [...next]
      current = bareService(definitions)
    },
    notify: () => {
      for (const l of listeners) l()
    },
    changes: (listener: () => void) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    listeners,
  }
}

const ids = async (service: ToolService) => (await listAllTools(service)).map((t) => t.id)

describe("tool-list changes", () => {
  it("every layer re-lists at once after a change: the new tool is listed and callable", async () => {
    const inner = mutable(allDefinitions)
    const gateway = await gatewayStack(inner.service, {
      // the default TTL (1 s): without invalidation, every layer would keep its listing that long
      changes: inner.changes,
      tools: [echo("skills/hello")],
      argumentOverrides: { "github/create_issue": { token: { value: "t" } } },
      capabilities: toolset("public").hideDestructive(),
      aliases: { "github/search": "gh/find" },
      composites: [{ name: "both", tools: ["gh/find", "docs/search"] }],
    })
    const before = await ids(gateway)
    expect(before).not.toContain("docs/new")
    await expect(gateway.callTool({ name: "docs/new", arguments: {} })).rejects.toBeInstanceOf(ToolNotFound)

    inner.set([...allDefinitions, echo("docs/new")])
    inner.notify()
    const after = await ids(gateway)
    expect(after).toEqual([...before, "docs/new"].sort())
    const result = await gateway.callTool({ name: "docs/new", arguments: { text: "hi" } })
    expect(result.structuredContent).toEqual({ tool: "docs/new", args: { text: "hi" } })

    // and a removed tool is gone at once
    inner.set(allDefinitions.filter((d) => d.id !== "docs/search"))
    inner.notify()
    expect(await ids(gateway)).not.toContain("docs/search")
    await expect(gateway.callTool({ name: "docs/search", arguments: { q: "x" } })).rejects.toBeInstanceOf(
      ToolNotFound,
    )
  })

  it("without a change the listing stays cached for listingTtlMs", async () => {
    const inner = mutable(allDefinitions)
    const gateway = await gatewayStack(inner.service, {
      changes: inner.changes,
      capabilities: toolset("public").hideDestructive(),
    })
    await ids(gateway)
    const lists = inner.lists()
    await ids(gateway)
    await gateway.callTool({ name: "docs/search", arguments: { q: "x" } })
    expect(inner.lists()).toBe(lists)
    inner.notify()
    await ids(gateway)
    expect(inner.lists()).toBeGreaterThan(lists)
  })

  it("a listing loaded across a change is not kept as fresh", async () => {
    const inner = mutable(allDefinitions)
    let release: (() => void) | undefined
    const gated: ToolService = {
      listTools: async (request) => {
        const page = await inner.service.listTools(request) // read before the change...
        await new Promise<void>((r) => {
          release = r
        }) // ...and returned after it
        return page
      },
      callTool: (request) => inner.service.callTool(request),
    }
    const gateway = await gatewayStack(gated, {
      changes: inner.changes,
      validation: false,
      capabilities: toolset("public").hideDestructive(),
    })
    /** Lets the stack run until the inner listing is called (true) or `settled` is (false). */
    const innerCalled = async (pending: Promise<unknown>): Promise<boolean> => {
      let settled = false
      pending.then(
        () => (settled = true),
        () => (settled = true),
      )
      while (!release && !settled) await new Promise((r) => setImmediate(r))
      return release !== undefined
    }
    const first = ids(gateway)
    expect(await innerCalled(first)).toBe(true)
    inner.set([...allDefinitions, echo("docs/new")])
    inner.notify()
    const stale = release!
    release = undefined
    stale()
    // a load started before the change may answer with the old list...
    expect(await first).not.toContain("docs/new")
    // ...but is not cached: the next listing reads the inner service again
    const second = ids(gateway)
    if (await innerCalled(second)) release!()
    expect(await second).toContain("docs/new")
  })

  it("search mode re-indexes at once: a new tool is found and callable through call_tool", async () => {
    const inner = mutable(allDefinitions)
    const gateway = await gatewayStack(inner.service, {
      changes: inner.changes,
      aliases: { "github/search": "gh/find" },
      searchMode: searchMode({ codec: testCodec }), // refreshes its index every 5 s on its own
    })
    const found = async () =>
      (
        (await gateway.callTool({ name: "toolplane/search_tools", arguments: { query: "", limit: 50 } }))
          .structuredContent as { hits: { id: string }[] }
      ).hits.map((h) => h.id)
    const call = { name: "toolplane/call_tool", arguments: { id: "docs/new", arguments: { text: "x" } } }
    expect(await found()).not.toContain("docs/new")
    await expect(gateway.callTool(call)).rejects.toBeInstanceOf(ToolNotFound)
    inner.set([...allDefinitions, echo("docs/new")])
    inner.notify()
    expect(await found()).toContain("docs/new")
    expect((await gateway.callTool(call)).structuredContent).toEqual({
      tool: "docs/new",
      args: { text: "x" },
    })
  })

  it("gatewayStack's build-time checks leave no subscription behind; the stack's layers subscribe once each", async () => {
    const inner = mutable(allDefinitions)
    await gatewayStack(inner.service, {
      changes: inner.changes,
      capabilities: toolset("public").hideDestructive(),
      aliases: { "github/search": "gh/find" },
      composites: [{ name: "both", tools: ["gh/find", "docs/search"] }],
    })
    // validation, capabilityFilter, aliasing, composite
    expect(inner.listeners.size).toBe(4)
  })
})
