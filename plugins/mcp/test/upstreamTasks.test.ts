// mcpBackend against upstreams that answer tools/call with a task (the io.modelcontextprotocol/tasks
// extension): a modern-only SDK v2 server over Streamable HTTP and over stdio, real processes.
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { createRunner, type ToolRunner } from "@toolplane/exec"
import { makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  UPSTREAM_TASK_HANDOFF_KEY,
  UPSTREAM_TASK_META_KEY,
  type UpstreamTask,
  type UpstreamTaskHandoff,
  upstreamTasksOf,
} from "../src/client/upstreamTasks.js"
import {
  type McpBackend,
  type McpBackendOptions,
  type McpHttpServerHandle,
  mcpBackend,
  serveHttp,
} from "../src/index.js"
import { TSX, textOf, until } from "./fixtures/modernProcesses.js"

const FIXTURE = join(import.meta.dirname, "fixtures/taskServer.ts")
const children = new Set<ChildProcess>()
afterAll(() => {
  for (const child of children) child.kill()
})

const startHttp = async (args: string[]): Promise<string> => {
  const child = spawn(TSX, [FIXTURE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] })
  children.add(child)
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", () => reject(new Error("fixture exited")))
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    })
  })
  return `http://127.0.0.1:${port}/mcp`
}

interface Stats {
  counts: Record<string, number>
  cancelled: string[]
  declaredTasks: number
  undeclaredCalls: number
}

const statsOf = async (backend: McpBackend): Promise<Stats> =>
  JSON.parse(textOf(await backend.execute({ toolId: "t/stats", arguments: {} }, makeContext())))

const options: McpBackendOptions = { requiresApproval: false, reconnect: false, protocol: "2026-07-28" }

const setups = [
  {
    label: "http",
    open: async () => mcpBackend({ name: "t", http: { url: await startHttp([]) } }, options),
  },
  {
    label: "stdio",
    open: async () => mcpBackend({ name: "t", stdio: { command: TSX, args: [FIXTURE] } }, options),
  },
] as const

const opening = new Map<string, Promise<McpBackend>>()
/** Every fixture starts at once (process start-up is most of this file's time). */
let plainUrl: Promise<string>
let gatewayUpstreamUrl: Promise<string>
const openAll = () => {
  if (opening.size > 0) return
  plainUrl = startHttp(["--no-tasks"])
  gatewayUpstreamUrl = startHttp([])
  plainUrl.catch(() => {})
  gatewayUpstreamUrl.catch(() => {})
  for (const setup of setups)
    opening.set(
      setup.label,
      setup.open().then(async (b) => {
        await b.connect()
        return b
      }),
    )
  for (const pending of opening.values()) pending.catch(() => {})
}

describe.each(setups)("tasks from a modern upstream ($label)", ({ label }) => {
  let backend: McpBackend
  beforeAll(async () => {
    openAll()
    backend = await opening.get(label)!
  }, 30_000)
  afterAll(async () => {
    await backend?.close()
  })

  it("declares the extension and polls tasks/get to the result, sending the call once", async () => {
    const before = await statsOf(backend)
    const progress: string[] = []
    const result = await backend.execute(
      { toolId: "t/slow", arguments: { ms: 120, text: label } },
      makeContext({ onProgress: (p) => progress.push(String(p.progress)) }),
    )
    expect(textOf(result)).toBe(`done ${label}`)
    expect(result.isError).not.toBe(true)
    const after = await statsOf(backend)
    // The call itself and the stats call; never sent again.
    expect(after.counts["tools/call"]! - before.counts["tools/call"]!).toBe(2)
    expect(after.counts["tasks/get"]! - (before.counts["tasks/get"] ?? 0)).toBeGreaterThanOrEqual(1)
    // 120 ms at the upstream's 20 ms interval: a handful of polls, not a busy loop.
    expect(after.counts["tasks/get"]! - (before.counts["tasks/get"] ?? 0)).toBeLessThan(30)
    expect(after.declaredTasks).toBeGreaterThan(0)
    expect(after.undeclaredCalls).toBe(0)
  })

  it("answers a task's input request through the caller's elicitation hook (once) with tasks/update", async () => {
    const asked: unknown[] = []
    const result = await backend.execute(
      { toolId: "t/ask", arguments: {} },
      makeContext({
        client: {
          elicitInput: async (params) => {
            asked.push(params)
            // Slower than the poll interval: the request is seen again and must not be asked twice.
            await new Promise((r) => setTimeout(r, 80))
            return { action: "accept", content: { name: "Ada" } }
          },
        },
      }),
    )
    expect(textOf(result)).toBe("Hello, Ada!")
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ message: "Please enter your name." })
    expect((await statsOf(backend)).counts["tasks/update"]).toBeGreaterThanOrEqual(1)
  })

  it("fails typed, and cancels the task, when the caller cannot answer its input", async () => {
    const before = await statsOf(backend)
    const error = await backend.execute({ toolId: "t/ask", arguments: {} }, makeContext()).catch((e) => e)
    expect(error).toMatchObject({ _tag: "ExecutionFailed", cause: { name: "InputRequired" } })
    await until(async () => (await statsOf(backend)).cancelled.length > before.cancelled.length)
  })

  it("sends tasks/cancel when the caller cancels, and fails with Cancelled", async () => {
    const before = await statsOf(backend)
    const controller = new AbortController()
    const pending = backend.execute(
      { toolId: "t/hang", arguments: {} },
      makeContext({ signal: controller.signal }),
    )
    await until(
      async () => ((await statsOf(backend)).counts["tasks/get"] ?? 0) > (before.counts["tasks/get"] ?? 0),
    )
    controller.abort(new Error("user pressed stop"))
    await expect(pending).rejects.toMatchObject({ _tag: "Cancelled" })
    await until(async () => (await statsOf(backend)).cancelled.length === before.cancelled.length + 1)
  })

  it("a deadline ends the wait with Timeout and cancels the task", async () => {
    const before = await statsOf(backend)
    const error = await backend
      .execute({ toolId: "t/hang", arguments: {} }, makeContext({ timeoutMs: 300 }))
      .catch((e) => e)
    expect(error).toMatchObject({ _tag: "Timeout", toolId: "t/hang" })
    await until(async () => (await statsOf(backend)).cancelled.length === before.cancelled.length + 1)
  })

  it("a failed task is a typed error naming the backend and the task, not retried", async () => {
    const before = await statsOf(backend)
    const error = await backend.execute({ toolId: "t/boom", arguments: {} }, makeContext()).catch((e) => e)
    expect(error).toMatchObject({
      _tag: "ExecutionFailed",
      toolId: "t/boom",
      retryable: false,
      cause: { name: "UpstreamTaskFailed" },
    })
    expect(error.cause.message).toMatch(
      /^t task [0-9a-f-]{36} failed: API rate limit exceeded \(code -32603\)/,
    )
    const after = await statsOf(backend)
    expect(after.counts["tools/call"]! - before.counts["tools/call"]!).toBe(2)
  })

  it("hands a task over to a serving side and relays get/update/cancel by the upstream id", async () => {
    const relay = upstreamTasksOf(backend)!
    expect(relay.backend).toBe("t")
    expect(relay.accepts()).toBe(true)
    const result = await backend.execute(
      { toolId: "t/ask", arguments: {} },
      makeContext({ metadata: { [UPSTREAM_TASK_HANDOFF_KEY]: true } }),
    )
    const handoff = result._meta?.[UPSTREAM_TASK_META_KEY] as UpstreamTaskHandoff
    expect(handoff).toMatchObject({ backend: "t", task: { status: "working" } })
    const taskId = handoff.task.taskId
    let task: UpstreamTask = handoff.task
    await until(async () => (task = await relay.get(taskId)).status === "input_required")
    expect(Object.keys(task.inputRequests!)).toEqual(["name"])
    await relay.update(taskId, { name: { action: "accept", content: { name: "Grace" } } })
    await until(async () => (task = await relay.get(taskId)).status === "completed")
    expect(task.result).toMatchObject({ content: [{ type: "text", text: "Hello, Grace!" }] })

    const hang = await backend.execute(
      { toolId: "t/hang", arguments: {} },
      makeContext({ metadata: { [UPSTREAM_TASK_HANDOFF_KEY]: true } }),
    )
    const hung = (hang._meta![UPSTREAM_TASK_META_KEY] as UpstreamTaskHandoff).task.taskId
    await relay.cancel(hung)
    expect((await statsOf(backend)).cancelled).toContain(hung)
    expect((await relay.get(hung)).status).toBe("cancelled")

    const unknown = await relay.get("no-such-task").catch((e) => e)
    expect(unknown).toMatchObject({ _tag: "ExecutionFailed", cause: { name: "UpstreamTaskError" } })
    expect(unknown.cause.message).toContain("tasks/get of t task no-such-task failed")
  })
})

describe("an upstream that does not advertise tasks", () => {
  let backend: McpBackend
  beforeAll(async () => {
    openAll()
    backend = mcpBackend({ name: "t", http: { url: await plainUrl } }, options)
    await backend.connect()
  }, 30_000)
  afterAll(async () => {
    await backend?.close()
  })

  it("is never sent the tasks capability, and answers synchronously", async () => {
    expect(backend.status().protocolVersion).toBe("2026-07-28")
    const result = await backend.execute(
      { toolId: "t/slow", arguments: { ms: 10, text: "plain" } },
      makeContext(),
    )
    expect(textOf(result)).toBe("sync plain")
    const stats = await statsOf(backend)
    expect(stats.counts["tools/call"]).toBe(2)
    expect(stats.declaredTasks).toBe(0)
    expect(upstreamTasksOf(backend)!.accepts()).toBe(false)
    await expect(upstreamTasksOf(backend)!.get("anything")).rejects.toMatchObject({
      _tag: "BackendUnavailable",
    })
  })
})

describe("polls lost to a dropped request (http)", () => {
  let backend: McpBackend
  beforeAll(async () => {
    openAll()
    backend = mcpBackend({ name: "t", http: { url: await gatewayUpstreamUrl } }, options)
    await backend.connect()
  }, 30_000)
  afterAll(async () => {
    await backend?.close()
  })

  it("are made again (up to 3 in a row) without sending the call again", async () => {
    const before = await statsOf(backend)
    const result = await backend.execute({ toolId: "t/flaky", arguments: { drops: 2 } }, makeContext())
    expect(textOf(result)).toBe("survived 2 dropped polls")
    const after = await statsOf(backend)
    expect(after.counts["tools/call"]! - before.counts["tools/call"]!).toBe(2)
    expect(after.cancelled).toEqual(before.cancelled)
  })

  it("fail the call as unavailable after more than 3 in a row", async () => {
    const error = await backend
      .execute({ toolId: "t/flaky", arguments: { drops: 5 } }, makeContext())
      .catch((e) => e)
    expect(error).toMatchObject({ _tag: "BackendUnavailable", backend: "t" })
  })
})

describe("a task that does not end", () => {
  let backend: McpBackend
  beforeAll(async () => {
    openAll()
    backend = mcpBackend(
      { name: "t", http: { url: await gatewayUpstreamUrl } },
      { ...options, callTimeoutMs: 250 },
    )
    await backend.connect()
  }, 30_000)
  afterAll(async () => {
    await backend?.close()
  })

  it("without a TTL, times out after the call timeout without a change, and is cancelled", async () => {
    const before = await statsOf(backend)
    const error = await backend.execute({ toolId: "t/hang", arguments: {} }, makeContext()).catch((e) => e)
    expect(error).toMatchObject({ _tag: "Timeout", toolId: "t/hang", timeoutMs: 250 })
    await until(async () => (await statsOf(backend)).cancelled.length === before.cancelled.length + 1)
  })

  it("with a TTL, is waited for until the TTL (not the call timeout), then fails typed and is cancelled", async () => {
    const before = await statsOf(backend)
    const started = Date.now()
    const error = await backend
      .execute({ toolId: "t/hang", arguments: { ttlMs: 600 } }, makeContext())
      .catch((e) => e)
    expect(Date.now() - started).toBeGreaterThanOrEqual(600)
    expect(error).toMatchObject({ _tag: "ExecutionFailed", cause: { name: "UpstreamTaskExpired" } })
    expect(error.cause.message).toMatch(/^t task \S+ outlived its ttlMs of 600 ms/)
    await until(async () => (await statsOf(backend)).cancelled.length === before.cancelled.length + 1)
  })
})

describe("a 2025-11-25 client through the gateway, to an upstream that answers with tasks", () => {
  let runner: ToolRunner
  let gateway: McpHttpServerHandle
  let client: Client
  beforeAll(async () => {
    openAll()
    const backend = mcpBackend({ name: "t", http: { url: await gatewayUpstreamUrl } }, options)
    runner = createRunner({ backends: [backend], hideUnsupportedCategories: false })
    await runner.ready()
    gateway = await serveHttp(runner)
    client = new Client({ name: "legacy", version: "1" }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: "accept",
      content: { name: request.params.message.includes("name") ? "Alan" : "?" },
    }))
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))
  }, 30_000)
  afterAll(async () => {
    await client?.close()
    await gateway?.close()
    await runner?.close()
  })

  it("gets the task's final result as the call's result, input asked through its own elicitation", async () => {
    const tools = await client.listTools()
    const slow = tools.tools.find((t) => t.name.endsWith("slow"))!.name
    const ask = tools.tools.find((t) => t.name.endsWith("ask"))!.name
    const done = await client.callTool({ name: slow, arguments: { ms: 60, text: "via gateway" } })
    expect(done).toMatchObject({ content: [{ type: "text", text: "done via gateway" }] })
    expect(done.isError).not.toBe(true)
    const hello = await client.callTool({ name: ask, arguments: {} })
    expect(hello).toMatchObject({ content: [{ type: "text", text: "Hello, Alan!" }] })
  })
})
