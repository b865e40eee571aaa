import { defineTool, makeContext, type Progress } from "@toolplane/foundation"
import { backendContract } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, type McpHttpServerHandle, mcpBackend, serveHttp } from "../src/index.js"
import { type DemoService, demoService } from "./fixtures/service.js"

describe.each(["node", "fetch"] as const)(
  "mcpBackend over Streamable HTTP (%s transport; a Toolplane service behind serveHttp)",
  (transport) => {
    let service: DemoService
    let handle: McpHttpServerHandle
    let backend: McpBackend
    let notify = () => {}
    const start = (port = 0) =>
      serveHttp(service, {
        port,
        watch: (n) => {
          notify = n
          return () => {}
        },
      })

    beforeAll(async () => {
      service = demoService({ pageSize: 5 })
      handle = await start()
      backend = mcpBackend(
        { name: "remote", http: { url: handle.url, headers: { "x-test": "1" }, transport } },
        { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } },
      )
      await backend.connect()
    })
    afterAll(async () => {
      await backend?.close()
      await handle?.close()
    })

    it("lists every page and restores Toolplane fields carried in _meta", async () => {
      const tools = await backend.toolSchemas()
      const expected = (await import("@toolplane/foundation")).listAllTools(service)
      expect(tools).toHaveLength((await expected).length)
      expect(tools.length).toBeGreaterThan(5)
      const echo = tools.find((t) => t.id === "remote/demo.echo")!
      expect(echo.tags).toEqual(["demo"])
      expect(echo.annotations?.readOnlyHint).toBe(true)
      expect(backend.status().kind).toBe("mcp-http")
    })

    it("calls with structured content and progress", async () => {
      const sum = await backend.execute(
        { toolId: "remote/demo.add", arguments: { a: 1, b: 2 } },
        makeContext(),
      )
      expect(sum.structuredContent).toEqual({ sum: 3 })
      const seen: Progress[] = []
      await backend.execute(
        { toolId: "remote/demo.slow", arguments: { steps: 2, delayMs: 5 } },
        makeContext({ onProgress: (p) => seen.push(p) }),
      )
      expect(seen.map((p) => p.progress)).toEqual([1, 2])
    })

    it("rebuilds the typed error a Toolplane server sends", async () => {
      await expect(
        backend.execute(
          { toolId: "remote/demo.add", arguments: { a: "x", b: 2 }, validated: true },
          makeContext(),
        ),
      ).rejects.toMatchObject({ _tag: "InvalidArguments", toolId: "demo/add" })
      await expect(
        backend.execute({ toolId: "remote/demo.fail", arguments: {} }, makeContext()),
      ).rejects.toMatchObject({
        _tag: "ExecutionFailed",
        cause: { message: "boom" },
      })
    })

    it("keeps isError results as results with typedErrors: 'result'", async () => {
      const plain = mcpBackend(
        { name: "plain", http: { url: handle.url, transport } },
        { typedErrors: "result" },
      )
      try {
        const result = await plain.execute({ toolId: "plain/demo.fail", arguments: {} }, makeContext())
        expect(result.isError).toBe(true)
      } finally {
        await plain.close()
      }
    })

    it("cancels the remote handler when ctx.signal aborts", async () => {
      const before = service.aborted.length
      const controller = new AbortController()
      const call = backend.execute(
        { toolId: "remote/demo.slow", arguments: { steps: 100, delayMs: 50 } },
        makeContext({ signal: controller.signal, onProgress: () => controller.abort() }),
      )
      await expect(call).rejects.toMatchObject({ _tag: "Cancelled" })
      await expect.poll(() => service.aborted.length).toBe(before + 1)
    })

    it("refreshes on notifications/tools/list_changed and tells its listeners", async () => {
      let fired = 0
      const off = backend.onToolsChanged(() => fired++)
      service.add(defineTool({ id: "demo/late", handler: () => "late" }))
      notify()
      await expect.poll(() => fired, { timeout: 5000 }).toBe(1)
      expect((await backend.supportedTools()).includes("remote/demo.late")).toBe(true)
      const result = await backend.execute({ toolId: "remote/demo.late", arguments: {} }, makeContext())
      expect(result.content).toEqual([{ type: "text", text: "late" }])
      off()
    })

    it("fails in-flight calls when the server goes away and reconnects when it is back", async () => {
      const port = handle.port
      let progressed!: () => void
      const running = new Promise<void>((resolve) => (progressed = resolve))
      const inFlight = backend
        .execute(
          { toolId: "remote/demo.slow", arguments: { steps: 200, delayMs: 50 } },
          makeContext({ onProgress: () => progressed() }),
        )
        .then(
          () => "resolved",
          (error) => error,
        )
      await running
      // The server dies (connections cut), rather than shutting down gracefully.
      handle.httpServer.closeAllConnections()
      await handle.close()
      expect(await inFlight).toMatchObject({ _tag: "BackendUnavailable", backend: "remote" })
      await expect(
        backend.execute({ toolId: "remote/demo.echo", arguments: { text: "x" } }, makeContext()),
      ).rejects.toMatchObject({ _tag: "BackendUnavailable" })
      handle = await start(port)
      await backend.connect()
      const echoed = await backend.execute(
        { toolId: "remote/demo.echo", arguments: { text: "back" } },
        makeContext(),
      )
      expect(echoed.content).toEqual([{ type: "text", text: "back" }])
      expect(backend.status().connections).toBeGreaterThanOrEqual(2)
    })
  },
)

describe("backend contract over HTTP", () => {
  let handle: McpHttpServerHandle
  beforeAll(async () => {
    handle = await serveHttp(demoService())
  })
  afterAll(async () => {
    await handle?.close()
  })
  backendContract(
    "mcpBackend over Streamable HTTP",
    () => mcpBackend({ name: "http", http: { url: handle.url } }),
    {
      sampleCall: { toolId: "http/demo.echo", arguments: { text: "hi" } },
      invalidCall: { toolId: "http/demo.echo", arguments: { text: 1 } },
    },
  )
})

describe("the node:http transport", () => {
  it("takes plain JSON answers, sends headers, and ends its session on close", async () => {
    const seen: (string | undefined)[] = []
    const handle = await serveHttp(demoService(), {
      enableJsonResponse: true,
      context: (info) => {
        seen.push(info.headers?.["x-test"] as string | undefined)
        return {}
      },
    })
    // A 2025 session (the server speaks both eras; sessions are what this test ends on close).
    const backend = mcpBackend(
      { name: "json", http: { url: handle.url, headers: { "x-test": "yes" } } },
      { protocol: "2025-11-25" },
    )
    try {
      const tools = await backend.toolSchemas()
      expect(tools.length).toBeGreaterThan(0)
      const result = await backend.execute(
        { toolId: "json/demo.echo", arguments: { text: "plain" } },
        makeContext({ timeoutMs: 5000 }),
      )
      expect(JSON.stringify(result)).toContain("plain")
      expect(handle.connections()).toBe(1)
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((h) => h === "yes")).toBe(true)
    } finally {
      await backend.close()
    }
    expect(handle.connections()).toBe(0)
    await handle.close()
  })
})
