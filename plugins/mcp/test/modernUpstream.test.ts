// mcpBackend against MCP 2026-07-28 servers (SDK v2, modern-only and dual-era), over stdio and
// Streamable HTTP, all real processes. (Protocol selection and cache hints: modernSelection.test.ts.)
import { makeContext, type ResourceProvider, resourceProviderOf } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, type McpBackendOptions, mcpBackend } from "../src/index.js"
import { children, FIXTURE, startHttp, statsOf, TSX, textOf, until } from "./fixtures/modernProcesses.js"

afterAll(() => {
  for (const child of children) child.kill()
})

type Setup = { readonly label: string; readonly open: () => Promise<McpBackend> }

const options: McpBackendOptions = {
  requiresApproval: false,
  reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
}

const setups: Setup[] = [
  {
    label: "stdio, modern-only",
    open: async () =>
      mcpBackend({ name: "m", stdio: { command: TSX, args: [FIXTURE, "--legacy", "reject"] } }, options),
  },
  {
    label: "stdio, dual-era",
    open: async () => mcpBackend({ name: "m", stdio: { command: TSX, args: [FIXTURE] } }, options),
  },
  {
    label: "http, modern-only",
    open: async () =>
      mcpBackend({ name: "m", http: { url: (await startHttp(["--legacy", "reject"])).url } }, options),
  },
  {
    label: "http, dual-era",
    open: async () => mcpBackend({ name: "m", http: { url: (await startHttp([])).url } }, options),
  },
]

/** Every server starts at once (process start-up is most of this file's time). */
const opening = new Map<string, Promise<McpBackend>>()
const openAll = () => {
  if (opening.size > 0) return
  for (const setup of setups)
    opening.set(
      setup.label,
      setup.open().then(async (backend) => {
        await backend.connect()
        return backend
      }),
    )
  for (const pending of opening.values()) pending.catch(() => {})
}

describe.each(setups)("mcpBackend against a 2026-07-28 server ($label)", ({ label }) => {
  let backend: McpBackend
  let provider: ResourceProvider
  beforeAll(async () => {
    openAll()
    backend = await opening.get(label)!
    provider = resourceProviderOf(backend)!
  }, 30_000)
  afterAll(async () => {
    await backend?.close()
  })

  it("negotiates 2026-07-28 with server/discover, without initialize", async () => {
    expect(backend.status()).toMatchObject({
      state: "connected",
      protocolVersion: "2026-07-28",
      serverInfo: { name: "modern-fixture" },
    })
    const { counts } = await statsOf(backend, "m")
    expect(counts["modern:server/discover"]).toBeGreaterThanOrEqual(1)
    expect(Object.keys(counts).filter((k) => k.startsWith("legacy:"))).toEqual([])
  })

  it("lists and calls tools, with progress and the per-request _meta envelope", async () => {
    const tools = await backend.toolSchemas()
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(["m/echo", "m/progress", "m/confirm"]))
    expect(
      textOf(await backend.execute({ toolId: "m/echo", arguments: { text: "hi" } }, makeContext())),
    ).toBe("hi")
    const progress: number[] = []
    const done = await backend.execute(
      { toolId: "m/progress", arguments: { steps: 3 } },
      makeContext({ onProgress: (p) => progress.push(p.progress) }),
    )
    expect(textOf(done)).toBe("did 3 steps")
    expect(progress).toEqual([1, 2, 3])
    const meta = JSON.parse(
      textOf(
        await backend.execute(
          { toolId: "m/meta", arguments: {} },
          makeContext({
            metadata: {
              traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
              "io.modelcontextprotocol/logLevel": "debug",
            },
          }),
        ),
      ),
    )
    expect(meta).toMatchObject({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "toolplane" },
      "io.modelcontextprotocol/clientCapabilities": expect.any(Object),
      "io.modelcontextprotocol/logLevel": "debug",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    })
  })

  it("reads a resource, gets a prompt and completes its argument", async () => {
    const read = await provider.readResource!("memo://greeting", makeContext())
    expect(read.contents[0]).toMatchObject({ text: "hello from the modern fixture" })
    const prompt = await provider.getPrompt!("greet", { name: "Ada" }, makeContext())
    expect(JSON.stringify(prompt.messages)).toContain("Hello, Ada!")
    const completion = await provider.complete!(
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "A" } },
      makeContext(),
    )
    expect(completion.values).toEqual(["Ada", "Alan"])
  })

  it("hears list changes and resource updates on its subscriptions/listen stream", async () => {
    const changed = new Promise<void>((resolve) => {
      const off = backend.onToolsChanged(() => {
        off()
        resolve()
      })
    })
    const added = textOf(await backend.execute({ toolId: "m/bump", arguments: {} }, makeContext()))
    await changed
    expect((await backend.toolSchemas()).map((t) => t.id)).toContain(`m/${added}`)
    await provider.subscribeResource!("memo://greeting")
    // The listen stream is re-opened with the URI; an update before that lands would be lost.
    await until(async () => ((await statsOf(backend, "m")).counts["modern:subscriptions/listen"] ?? 0) >= 2)
    await new Promise((r) => setTimeout(r, 100))
    const updated = new Promise<string>((resolve) => {
      const off = provider.onResourceUpdated!((uri) => {
        off()
        resolve(uri)
      })
    })
    await backend.execute({ toolId: "m/touch", arguments: { uri: "memo://greeting" } }, makeContext())
    expect(await updated).toBe("memo://greeting")
    await provider.unsubscribeResource!("memo://greeting")
  })

  it("answers input_required through the caller's elicitation hook, sending the call again once", async () => {
    const before = (await statsOf(backend, "m")).confirmed
    const asked: unknown[] = []
    const result = await backend.execute(
      { toolId: "m/confirm", arguments: { what: "deploy" } },
      makeContext({
        client: {
          elicitInput: async (params) => {
            asked.push(params)
            return { action: "accept", content: { ok: true } }
          },
        },
      }),
    )
    expect(textOf(result)).toBe("confirmed deploy (state-for-deploy)")
    expect(asked).toEqual([expect.objectContaining({ message: "Do deploy?" })])
    expect((await statsOf(backend, "m")).confirmed).toBe(before + 1)
  })

  it("fails a call whose input the caller cannot give, without sending it again", async () => {
    const calls = (await statsOf(backend, "m")).counts["modern:tools/call"] ?? 0
    await expect(
      backend.execute({ toolId: "m/confirm", arguments: { what: "nothing" } }, makeContext()),
    ).rejects.toMatchObject({ _tag: "ExecutionFailed", cause: { name: "InputRequired" } })
    // The confirm call itself, then this stats call: nothing in between.
    expect((await statsOf(backend, "m")).counts["modern:tools/call"]).toBe(calls + 2)
  })

  it("cancels a call: the server is told with an enveloped notifications/cancelled", async () => {
    const controller = new AbortController()
    const started = Date.now()
    const call = backend.execute(
      { toolId: "m/progress", arguments: { steps: 200 } },
      makeContext({ signal: controller.signal, onProgress: () => controller.abort(new Error("enough")) }),
    )
    await expect(call).rejects.toMatchObject({ _tag: "Cancelled" })
    expect(Date.now() - started).toBeLessThan(2000)
    await until(
      async () => ((await statsOf(backend, "m")).counts["modern:notifications/cancelled"] ?? 0) >= 1,
    )
  })

  if (label.startsWith("http"))
    it("re-opens a broken listen stream", async () => {
      const opens = (await statsOf(backend, "m")).counts["modern:subscriptions/listen"] ?? 0
      await backend.execute({ toolId: "m/drop", arguments: {} }, makeContext())
      await until(
        async () => ((await statsOf(backend, "m")).counts["modern:subscriptions/listen"] ?? 0) > opens,
      )
      const changed = new Promise<void>((resolve) => {
        const off = backend.onToolsChanged(() => {
          off()
          resolve()
        })
      })
      await new Promise((r) => setTimeout(r, 100))
      await backend.execute({ toolId: "m/bump", arguments: {} }, makeContext())
      await changed
    })

  if (label === "stdio, modern-only")
    it("reconnects after the server dies, still on 2026-07-28", async () => {
      const pid = backend.status().pid!
      process.kill(pid)
      await until(() => backend.status().connections >= 2 && backend.status().state === "connected", 15_000)
      expect(backend.status().protocolVersion).toBe("2026-07-28")
      expect(
        textOf(await backend.execute({ toolId: "m/echo", arguments: { text: "back" } }, makeContext())),
      ).toBe("back")
    }, 20_000)
})
