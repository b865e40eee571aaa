import { describe, expect, it } from "vitest"
import {
  BackendRegistry,
  ConfigError,
  defineBackend,
  makeTool,
  ToolConflict,
  textResult,
} from "../src/index.js"

const backend = (name: string, ids: string[], healthy: boolean | (() => Promise<boolean>) = true) =>
  defineBackend({
    name,
    toolSchemas: () => ids.map((id) => makeTool({ id })),
    execute: (call) => textResult(`${name}:${call.toolId}`),
    healthCheck: typeof healthy === "function" ? healthy : () => healthy,
  })

describe("BackendRegistry", () => {
  it("maps ids to backends, sorted, and unregisters all of a backend's tools", async () => {
    const registry = new BackendRegistry()
    await registry.register(backend("b", ["z/two", "a/one"]))
    await registry.register(backend("a", ["m/three"]))
    expect(registry.toolIds()).toEqual(["a/one", "m/three", "z/two"])
    expect(registry.resolve("m/three")?.backend.name).toBe("a")
    expect(registry.unregister("b")).toBe(true)
    expect(registry.toolIds()).toEqual(["m/three"])
    expect(registry.resolve("a/one")).toBeUndefined()
    expect(registry.unregister("b")).toBe(false)
  })

  it("refuses a second claimant by default and registers nothing of it", async () => {
    const registry = new BackendRegistry()
    await registry.register(backend("one", ["x/a"]))
    const error = await registry.register(backend("two", ["x/b", "x/a"])).catch((e) => e)
    expect(error).toBeInstanceOf(ToolConflict)
    expect((error as ToolConflict).backends).toEqual(["one", "two"])
    expect(registry.toolIds()).toEqual(["x/a"])
    expect(registry.backend("two")).toBeUndefined()
  })

  it("lets a selection policy decide, and falls back when the winner leaves", async () => {
    const registry = new BackendRegistry({ selection: "last" })
    await registry.register(backend("one", ["x/a"]))
    await registry.register(backend("two", ["x/a"]))
    expect(registry.resolve("x/a")?.backend.name).toBe("two")
    registry.unregister("two")
    expect(registry.resolve("x/a")?.backend.name).toBe("one")
    const custom = new BackendRegistry({
      selection: (_id, claims) => claims.find((c) => c.backend.name === "pick")!,
    })
    await custom.register(backend("pick", ["x/a"]))
    await custom.register(backend("other", ["x/a"]))
    expect(custom.resolve("x/a")?.backend.name).toBe("pick")
  })

  it("rejects duplicate backend names", async () => {
    const registry = new BackendRegistry()
    await registry.register(backend("one", ["x/a"]))
    expect(await registry.register(backend("one", ["y/a"])).catch((e) => e)).toBeInstanceOf(ConfigError)
  })

  it("reports the health of all backends, a throwing or slow check counting as unhealthy", async () => {
    const registry = new BackendRegistry({ healthTimeoutMs: 50 })
    await registry.register(backend("ok", ["a/x"]))
    await registry.register(backend("down", ["b/x"], false))
    await registry.register(backend("throws", ["c/x"], () => Promise.reject(new Error("socket closed"))))
    await registry.register(
      backend("slow", ["d/x"], () => new Promise((r) => setTimeout(() => r(true), 1000))),
    )
    const health = await registry.health()
    expect(health.ok).toEqual({ healthy: true, tools: 1 })
    expect(health.down?.healthy).toBe(false)
    expect(health.throws).toMatchObject({ healthy: false, error: "socket closed" })
    expect(health.slow?.error).toContain("exceeded 50 ms")
  })

  it("notifies listeners and refreshes a backend's tools", async () => {
    let ids = ["r/a"]
    const dynamic = defineBackend({
      name: "dyn",
      toolSchemas: () => ids.map((id) => makeTool({ id })),
      execute: () => textResult("ok"),
    })
    const registry = new BackendRegistry()
    let changes = 0
    registry.onChange(() => changes++)
    await registry.register(dynamic)
    ids = ["r/b", "r/c"]
    await registry.refresh("dyn")
    expect(registry.toolIds()).toEqual(["r/b", "r/c"])
    expect(changes).toBe(2)
  })
})

describe("BackendRegistry ordering", () => {
  it("keeps the selection stable when the chosen backend refreshes", async () => {
    const registry = new BackendRegistry({ selection: "first" })
    await registry.register(backend("primary", ["x/a"]))
    await registry.register(backend("fallback", ["x/a"]))
    expect(registry.resolve("x/a")?.backend.name).toBe("primary")
    await registry.refresh("primary")
    expect(registry.resolve("x/a")?.backend.name).toBe("primary")
    await registry.refresh("fallback")
    expect(registry.resolve("x/a")?.backend.name).toBe("primary")
  })
})
