// mcpBackend's protocol selection (auto against a 2025-only server-everything, pinned either way) and a
// modern server's cache hints, all real processes.
import { makeContext, resourceProviderOf } from "@toolplane/foundation"
import { afterAll, describe, expect, it } from "vitest"
import { type McpBackend, mcpBackend } from "../src/index.js"
import { everythingBin } from "./fixtures/everything.js"
import { children, FIXTURE, startHttp, statsOf, TSX, textOf, until } from "./fixtures/modernProcesses.js"

afterAll(() => {
  for (const child of children) child.kill()
})

/** The cache tests' servers start at once (process start-up is most of their time). */
const opening = new Map<string, Promise<McpBackend>>()
const openAll = () => {
  if (opening.size > 0) return
  opening.set("big", openBig())
  opening.set(
    "modern-ttl",
    (async () => {
      const backend = mcpBackend(
        { name: "ttl", stdio: { command: TSX, args: [FIXTURE, "--legacy", "reject", "--ttl", "60000"] } },
        { requiresApproval: false },
      )
      await backend.connect()
      return backend
    })(),
  )
  for (const pending of opening.values()) pending.catch(() => {})
}

/** A 1,000-tool modern server over stdio (one server instance per connection; HTTP builds one per request). */
const openBig = async () => {
  const backend = mcpBackend(
    {
      name: "big",
      stdio: { command: TSX, args: [FIXTURE, "--legacy", "reject", "--tools", "1000", "--ttl", "1500"] },
    },
    { requiresApproval: false },
  )
  await backend.connect()
  return backend
}

describe("protocol selection", () => {
  it("falls back to initialize for a 2025-only server (server-everything over stdio)", async () => {
    const backend = mcpBackend({ name: "e", stdio: { command: everythingBin } }, { requiresApproval: false })
    try {
      await backend.connect()
      expect(backend.status().protocolVersion).toBe("2025-11-25")
      const echo = await backend.execute({ toolId: "e/echo", arguments: { message: "hi" } }, makeContext())
      expect(textOf(echo)).toBe("Echo: hi")
      expect(backend.status().toolsCache).toBeUndefined()
    } finally {
      await backend.close()
    }
  }, 20_000)

  it("speaks 2026-07-28 over the SDK's fetch transport too (headers from the body)", async () => {
    const { url } = await startHttp(["--legacy", "reject"])
    const backend = mcpBackend({ name: "m", http: { url, transport: "fetch" } }, { requiresApproval: false })
    try {
      await backend.connect()
      expect(backend.status().protocolVersion).toBe("2026-07-28")
      const progress: number[] = []
      const done = await backend.execute(
        { toolId: "m/progress", arguments: { steps: 2 } },
        makeContext({ onProgress: (p) => progress.push(p.progress) }),
      )
      expect(textOf(done)).toBe("did 2 steps")
      expect(progress).toEqual([1, 2])
    } finally {
      await backend.close()
    }
  }, 20_000)

  it("reports a 2025-only server unavailable when 2026-07-28 is required", async () => {
    const backend = mcpBackend(
      { name: "e", stdio: { command: everythingBin } },
      { protocol: "2026-07-28", reconnect: false },
    )
    try {
      await expect(backend.connect()).rejects.toMatchObject({
        _tag: "BackendUnavailable",
        reason: expect.stringContaining("does not speak MCP 2026-07-28"),
      })
    } finally {
      await backend.close()
    }
  }, 20_000)

  it("initializes without a probe when 2025-11-25 is chosen (refused by a modern-only server)", async () => {
    const { url } = await startHttp(["--legacy", "reject"])
    const dual = await startHttp([])
    const refused = mcpBackend({ name: "m", http: { url } }, { protocol: "2025-11-25", reconnect: false })
    const legacy = mcpBackend(
      { name: "m", http: { url: dual.url } },
      { protocol: "2025-11-25", reconnect: false },
    )
    try {
      await expect(refused.connect()).rejects.toMatchObject({
        _tag: "BackendUnavailable",
        reason: expect.stringContaining("Unsupported protocol version"),
      })
      await legacy.connect()
      expect(legacy.status().protocolVersion).toBe("2025-11-25")
      const { counts } = await statsOf(legacy, "m")
      expect(counts["modern:server/discover"]).toBeUndefined()
      expect(counts["legacy:initialize"]).toBe(1)
    } finally {
      await refused.close()
      await legacy.close()
    }
  }, 20_000)
})

describe("cache hints of a modern server", () => {
  it("lists a 1,000-tool backend once within its ttlMs, and again after it", async () => {
    openAll()
    const backend = await opening.get("big")!
    try {
      const lists = async () => (await statsOf(backend, "big")).counts["modern:tools/list"]
      // Listed now (it was started with the others, maybe longer than its ttlMs ago).
      await backend.refresh()
      const listed = await lists()
      const first = await backend.toolSchemas()
      expect(first.length).toBeGreaterThan(1000)
      expect((await backend.toolSchemas()).length).toBeGreaterThan(1000)
      expect(await lists()).toBe(listed)
      expect(backend.status().toolsCache).toMatchObject({ ttlMs: 1500, cacheScope: "public" })
      await until(() => Date.now() >= backend.status().toolsCache!.freshUntil, 5000)
      const again = await backend.toolSchemas()
      expect(await lists()).toBe(listed! + 1)
      // An unchanged tool is not converted again: the same object.
      const filler = (tools: readonly { id: string }[]) => tools.find((t) => t.id === "big/filler7")
      expect(filler(again)).toBe(filler(first))
    } finally {
      await backend.close()
    }
  }, 30_000)

  it("lists resources and prompts once within their ttlMs", async () => {
    openAll()
    const backend = await opening.get("modern-ttl")!
    const provider = resourceProviderOf(backend)!
    try {
      const count = async (method: string) => (await statsOf(backend, "ttl")).counts[`modern:${method}`] ?? 0
      const resources = await count("resources/list")
      const prompts = await count("prompts/list")
      expect((await provider.listResources!(makeContext())).map((r) => r.uri)).toEqual(["memo://greeting"])
      expect((await provider.listResources!(makeContext())).map((r) => r.uri)).toEqual(["memo://greeting"])
      expect((await provider.listPrompts!(makeContext())).map((p) => p.name)).toEqual(["greet"])
      expect((await provider.listPrompts!(makeContext())).map((p) => p.name)).toEqual(["greet"])
      expect(await count("resources/list")).toBe(resources + 1)
      expect(await count("prompts/list")).toBe(prompts + 1)
    } finally {
      await backend.close()
    }
  }, 30_000)
})
