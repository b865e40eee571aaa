// mcpBackend against MCP 2026-07-28 servers (SDK v2, modern-only and dual-era) and a 2025-only one
// (server-everything), over stdio and Streamable HTTP, all real processes.
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { makeContext, type ResourceProvider, resourceProviderOf } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, type McpBackendOptions, mcpBackend } from "../src/index.js"
import { everythingBin } from "./fixtures/everything.js"

const TSX = join(import.meta.dirname, "../../../node_modules/.bin/tsx")
const FIXTURE = join(import.meta.dirname, "fixtures/modernServer.ts")

const children = new Set<ChildProcess>()

/** Starts the fixture over HTTP; resolves with its URL. */
const startHttp = async (args: string[]): Promise<{ url: string; child: ChildProcess }> => {
  const child = spawn(TSX, [FIXTURE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] })
  children.add(child)
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", () => reject(new Error("fixture exited")))
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    })
  })
  return { url: `http://127.0.0.1:${port}/mcp`, child }
}

const textOf = (result: { content: readonly unknown[] }): string =>
  result.content.map((b) => (b as { text?: string }).text ?? "").join("")

const statsOf = async (backend: McpBackend, name: string) =>
  JSON.parse(textOf(await backend.execute({ toolId: `${name}/stats`, arguments: {} }, makeContext()))) as {
    counts: Record<string, number>
    confirmed: number
  }

const until = async (check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 25))
  }
}

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
