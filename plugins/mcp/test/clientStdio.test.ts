import { type Backend, makeContext, type Progress } from "@toolplane/foundation"
import { backendContract } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { McpBackend } from "../src/index.js"
import { everything, textOf } from "./fixtures/everything.js"

describe("mcpBackend over stdio (server-everything)", () => {
  let backend: McpBackend
  beforeAll(async () => {
    backend = everything()
    await backend.connect()
  })
  afterAll(async () => {
    await backend?.close()
  })

  it("lists every tool under the configured namespace, keeping title, annotations and outputSchema", async () => {
    const tools = await backend.toolSchemas()
    expect(tools.length).toBeGreaterThanOrEqual(13)
    expect(tools.every((t) => t.namespace === "everything" && t.id === `everything/${t.name}`)).toBe(true)
    const ids = tools.map((t) => t.id)
    expect(ids).toEqual([...ids].sort())
    const echo = tools.find((t) => t.id === "everything/echo")!
    expect(echo.title).toBe("Echo Tool")
    expect(echo.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    expect(echo.metadata?.mcp).toMatchObject({ execution: { taskSupport: "forbidden" } })
    const structured = tools.find((t) => t.id === "everything/get-structured-content")!
    expect(structured.outputSchema).toMatchObject({ type: "object" })
    expect(backend.status()).toMatchObject({ state: "connected", tools: tools.length, kind: "mcp-stdio" })
    expect(backend.metadata()).toMatchObject({
      name: "everything",
      kind: "mcp-stdio",
      server: "mcp-servers/everything",
    })
  })

  it("calls echo and get-sum by the names the server reports", async () => {
    const echo = await backend.execute(
      { toolId: "everything/echo", arguments: { message: "hi" } },
      makeContext(),
    )
    expect(textOf(echo)).toBe("Echo: hi")
    const sum = await backend.execute(
      { toolId: "everything/get-sum", arguments: { a: 2, b: 40 } },
      makeContext(),
    )
    expect(textOf(sum)).toContain("42")
  })

  it("returns structured content", async () => {
    const result = await backend.execute(
      { toolId: "everything/get-structured-content", arguments: { location: "Chicago" } },
      makeContext(),
    )
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) })
  })

  it("validates arguments locally before sending them", async () => {
    await expect(
      backend.execute({ toolId: "everything/get-sum", arguments: { a: "2", b: 1 } }, makeContext()),
    ).rejects.toMatchObject({ _tag: "InvalidArguments", issues: [expect.objectContaining({ path: "/a" })] })
  })

  it("forwards MCP progress notifications to ctx.reportProgress", async () => {
    const seen: Progress[] = []
    const result = await backend.execute(
      { toolId: "everything/trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
      makeContext({ onProgress: (p) => seen.push(p) }),
    )
    expect(textOf(result)).toContain("completed")
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3])
    expect(seen[0]!.total).toBe(3)
  })

  it("cancels a running call when ctx.signal aborts", async () => {
    const controller = new AbortController()
    const started = Date.now()
    const call = backend.execute(
      { toolId: "everything/trigger-long-running-operation", arguments: { duration: 20, steps: 20 } },
      makeContext({ signal: controller.signal }),
    )
    setTimeout(() => controller.abort(new Error("stop")), 100)
    await expect(call).rejects.toMatchObject({
      _tag: "Cancelled",
      toolId: "everything/trigger-long-running-operation",
    })
    expect(Date.now() - started).toBeLessThan(2000)
    // The connection survives cancellation.
    expect(await backend.healthCheck()).toBe(true)
  })

  it("times out at the context deadline", async () => {
    const call = backend.execute(
      { toolId: "everything/trigger-long-running-operation", arguments: { duration: 20, steps: 20 } },
      makeContext({ timeoutMs: 150 }),
    )
    await expect(call).rejects.toMatchObject({ _tag: "Timeout" })
  })

  it("rejects an unknown tool with ToolNotFound and suggestions", async () => {
    await expect(
      backend.execute({ toolId: "everything/ecko", arguments: {} }, makeContext()),
    ).rejects.toMatchObject({
      _tag: "ToolNotFound",
      suggestions: expect.arrayContaining(["everything/echo"]),
    })
  })

  it("checks health with ping", async () => {
    expect(await backend.healthCheck()).toBe(true)
  })
})

backendContract("mcpBackend over stdio (server-everything)", (): Backend => everything("contract"), {
  sampleCall: { toolId: "contract/echo", arguments: { message: "hi" } },
  invalidCall: { toolId: "contract/echo", arguments: { message: 1 } },
})
