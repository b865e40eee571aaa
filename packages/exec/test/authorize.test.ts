/**
 * `createRunner({ authorize })`: the runner's per-caller check, in front of everything (prefetch
 * included). The caller's grants travel in its context's metadata, as the gateway's token scopes do.
 */
import { isToolError, makeContext, ToolNotFound } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { createRunner, type RunnerOptions } from "../src/index.js"
import { kvService, settle } from "./prefetchFixture.js"

/** Admits exactly the ids the context's `allowed` metadata lists (nothing without it). */
const authorize = (toolId: string, ctx: { metadata: Readonly<Record<string, unknown>> }) => {
  const allowed = ctx.metadata.allowed
  return Array.isArray(allowed) && allowed.includes(toolId)
}

const as = (allowed: readonly string[]) => makeContext({ callerId: "A", metadata: { allowed } })

/** The fixture's key-value tools in a runner with `options`. */
const kvRunner = (options: RunnerOptions) => {
  const service = kvService()
  const runner = createRunner({ backends: [definitionBackend(service.defs)], retry: false, ...options })
  return { runner, service }
}

describe("the runner's authorize check", () => {
  it("lists only admitted tools and refuses the others as unknown, suggesting only admitted ids", async () => {
    const { runner: checked, service } = kvRunner({ authorize })
    const ctx = as(["kv/list", "kv/put"])
    expect((await checked.listTools({ context: ctx })).tools.map((t) => t.id)).toEqual(["kv/list", "kv/put"])
    expect((await checked.listTools({ context: as([]) })).tools).toEqual([])
    const refused = await checked
      .callTool({ name: "kv/get", arguments: { key: "a" }, context: ctx })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ToolNotFound)
    expect((refused as ToolNotFound).suggestions.every((id) => ["kv/list", "kv/put"].includes(id))).toBe(true)
    expect(service.executions).toEqual([])
    await expect(checked.callTool({ name: "kv/list", arguments: {}, context: ctx })).resolves.toMatchObject({
      structuredContent: { keys: ["a", "b"] },
    })
    expect(service.executions.map((e) => e.tool)).toEqual(["kv/list"])
  })
})

describe("prefetch under authorize", () => {
  const prefetching = () =>
    kvRunner({
      authorize,
      prefetch: { learning: { minConfidence: 0, minSupport: 1 }, maxPerCall: 4, ttlMs: 2000 },
    })

  it("runs a speculative call with the grants of the call that led to it, and only when they admit it", async () => {
    const { runner, service } = prefetching()
    const wide = as(["kv/list", "kv/get"])
    const narrow = as(["kv/list"])
    // Teach the pattern kv/list -> kv/get(a) with the wide grants.
    for (let i = 0; i < 2; i++) {
      await runner.callTool({ name: "kv/list", arguments: {}, context: wide })
      await settle(runner)
      await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: wide })
      await settle(runner)
    }
    const gets = () => service.executions.filter((e) => e.tool === "kv/get").length
    const before = gets()
    // Same caller id, narrower grants: the learned follow-up is not run for it.
    await runner.callTool({ name: "kv/list", arguments: {}, context: narrow })
    await settle(runner)
    expect(gets()).toBe(before)
    // With the wide grants it is (the speculative call carried them: without, it would be refused).
    await runner.callTool({ name: "kv/list", arguments: {}, context: wide })
    await settle(runner)
    expect(gets()).toBe(before + 1)
    // A prefetched result is served only to a call the grants admit.
    const refused = await runner
      .callTool({ name: "kv/get", arguments: { key: "a" }, context: narrow })
      .catch((e: unknown) => e)
    expect(isToolError(refused) && refused._tag).toBe("ToolNotFound")
    const hits = runner.prefetch!.stats().hits
    const served = await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: wide })
    expect(served.structuredContent).toEqual({ key: "a", value: "1" })
    expect(gets()).toBe(before + 1)
    expect(runner.prefetch!.stats().hits).toBe(hits + 1)
    runner.prefetch!.close()
  })

  it("prefetches only the tools `readOnly` names, whatever their annotations say", async () => {
    const { runner, service } = kvRunner({
      prefetch: { learning: { minConfidence: 0, minSupport: 1 }, readOnly: (tool) => tool.id === "kv/list" },
    })
    const ctx = { callerId: "A" }
    for (let i = 0; i < 3; i++) {
      await runner.callTool({ name: "kv/list", arguments: {}, context: ctx })
      await settle(runner)
      await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: ctx })
      await settle(runner)
    }
    await runner.callTool({ name: "kv/list", arguments: {}, context: ctx })
    await settle(runner)
    // kv/get is annotated readOnlyHint, but `readOnly` does not name it: never run speculatively (it
    // would be after this last kv/list). kv/list, which `readOnly` names, is.
    expect(service.executions.filter((e) => e.tool === "kv/get")).toHaveLength(3)
    expect(runner.prefetch!.stats().issued).toBeGreaterThan(0)
    runner.prefetch!.close()
  })
})
