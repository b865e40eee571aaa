/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) served to a real MCP SDK v2 client
 * (`@modelcontextprotocol/client`, pinned to 2026-07-28, declaring the extension): a long call answered
 * with a task is polled to completion with `tasks/get`, another is cancelled with `tasks/cancel` (the
 * cancellation reaches the running call), a durable skill's step waiting for approval is approved with
 * `tasks/update` (and a declined approval runs nothing), all against `serveHttp` over loopback.
 *
 * SDK v2 2.4.0 knows no `resultType: "task"`: its `callTool` rejects the `CreateTaskResult` as an
 * unsupported result type, so the test reads the task handle from the response the client received
 * (its own `fetch`), then drives `tasks/*` through the client's `request`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { gatewayStack } from "@toolplane/compose"
import { type DurableRunner, durableSkillTool, openDurableRunner } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gatewayApprover } from "../src/elicitApproval.js"
import { modernPost } from "./helpers/modernPost.js"
import { releaseSkill } from "./helpers/releaseSkill.js"
import { isTerminal, pollTask, recordingTaskResults, taskRequest } from "./helpers/taskResults.js"

const TASKS = "io.modelcontextprotocol/tasks"
const taskSupport = { mcp: { execution: { taskSupport: "optional" } } }

const aborted: string[] = []
const wait = defineTool({
  id: "jobs/wait",
  input: {
    type: "object",
    properties: { ms: { type: "number" }, tag: { type: "string" } },
    required: ["ms"],
  },
  annotations: { readOnlyHint: true },
  metadata: taskSupport,
  handler: (args: Record<string, unknown>, ctx) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waited: args.ms, tag: args.tag }), args.ms as number)
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer)
        aborted.push(String(args.tag))
        reject(ctx.signal.reason)
      })
    }),
})

const launched: unknown[] = []
const launch = defineTool({
  id: "ops/launch",
  input: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
  annotations: { destructiveHint: true },
  metadata: taskSupport,
  handler: (args: Record<string, unknown>) => {
    launched.push(args.target)
    return { launched: args.target }
  },
})

const { build, deploy, release, deployed } = releaseSkill()

const dir = mkdtempSync(join(tmpdir(), "toolplane-tasks-"))
let durable: DurableRunner
let server: McpHttpServerHandle
/** A second replica (same secret, same service) and a server with another secret. */
let replica: McpHttpServerHandle
let foreign: McpHttpServerHandle
const SECRET = "replicas-share-this-secret-0123456789"

beforeAll(async () => {
  const runner = createRunner({
    backends: [
      definitionBackend([wait, build, deploy, launch], {
        name: "local",
        approval: (id) => id === "ops/launch",
      }),
    ],
    // approval = "elicit": the caller is asked (for a task: one of its input requests)
    approver: gatewayApprover(new Map([["local", "elicit"]])),
  })
  durable = await openDurableRunner({
    storage: join(dir, "runs.db"),
    service: runner,
    elicitationTimeoutMs: 30_000,
  })
  const gateway = await gatewayStack(runner, { tools: [durableSkillTool(release, durable)] })
  server = await serveHttp(gateway, { sessionSecret: SECRET })
  replica = await serveHttp(gateway, { sessionSecret: SECRET })
  foreign = await serveHttp(gateway, { sessionSecret: "another-secret-0123456789abcdef" })
}, 30_000)

afterAll(async () => {
  await server?.close()
  await replica?.close()
  await foreign?.close()
  await durable?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** An SDK v2 client declaring the tasks extension; `created` holds the CreateTaskResults it received. */
const connect = async () => {
  const created: Record<string, unknown>[] = []
  const recording = recordingTaskResults(created)
  const client = new Client(
    { name: "tasks", version: "1.0.0" },
    {
      capabilities: { elicitation: {}, extensions: { [TASKS]: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  )
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: recording }))
  return { client, created }
}

type V2 = Awaited<ReturnType<typeof connect>>["client"]

/** Calls a tool that answers with a task; the task's CreateTaskResult. */
const startTask = async (session: Awaited<ReturnType<typeof connect>>, name: string, args: object) => {
  const before = session.created.length
  const error = await session.client.callTool({ name, arguments: args as Record<string, unknown> }).then(
    () => undefined,
    (e: unknown) => e as { code?: unknown; message: string },
  )
  // SDK 2.4.0 does not know resultType "task": it reports an unsupported result type
  expect(error?.message).toMatch(/Unsupported result type 'task'/)
  expect(session.created.length).toBe(before + 1)
  return session.created[before]!
}

const tasks = taskRequest
const pollUntil = (client: V2, taskId: string, done: (status: string) => boolean) =>
  pollTask(client, taskId, done)
const terminal = isTerminal

describe("the tasks extension with the MCP SDK v2 client", () => {
  it("polls a task to completion: working, then completed with the call's result inlined", async () => {
    const session = await connect()
    try {
      const task = await startTask(session, "jobs.wait", { ms: 800, tag: "poll" })
      expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number) })
      expect(task).not.toHaveProperty("result")
      const taskId = task.taskId as string
      const working = await tasks(session.client, "tasks/get", { taskId })
      expect(working.status).toBe("working")
      const done = await pollUntil(session.client, taskId, terminal)
      expect(done.status).toBe("completed")
      expect(done.result.structuredContent).toEqual({ waited: 800, tag: "poll" })
      expect(done.result.isError).toBeFalsy()
    } finally {
      await session.client.close()
    }
  })

  it("a fast call is answered directly, without a task", async () => {
    const session = await connect()
    try {
      const result = (await session.client.callTool({
        name: "jobs.wait",
        arguments: { ms: 1, tag: "fast" },
      })) as {
        structuredContent?: unknown
      }
      expect(result.structuredContent).toEqual({ waited: 1, tag: "fast" })
      expect(session.created).toHaveLength(0)
    } finally {
      await session.client.close()
    }
  })

  it("cancels a task: the ack is empty, the task is cancelled and the running call is aborted", async () => {
    const session = await connect()
    try {
      const { taskId } = (await startTask(session, "jobs.wait", { ms: 60_000, tag: "cancel-me" })) as {
        taskId: string
      }
      const ack = await tasks(session.client, "tasks/cancel", { taskId })
      expect(ack).toEqual({})
      const state = await tasks(session.client, "tasks/get", { taskId })
      expect(state.status).toBe("cancelled")
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(aborted).toContain("cancel-me")
      // cancelling again is the same empty ack
      expect(await tasks(session.client, "tasks/cancel", { taskId })).toEqual({})
    } finally {
      await session.client.close()
    }
  })

  it("approves a durable skill's waiting step through tasks/update; until then the step does not run", async () => {
    const session = await connect()
    try {
      const before = deployed.length
      const { taskId } = (await startTask(session, "skill.release", { version: "3.1" })) as { taskId: string }
      const waiting = await pollUntil(session.client, taskId, (s) => s === "input_required" || terminal(s))
      expect(waiting.status).toBe("input_required")
      const [key, request] = Object.entries(waiting.inputRequests as Record<string, any>)[0]!
      expect(request.method).toBe("elicitation/create")
      expect(request.params.message).toContain('"ci/deploy"')
      expect(deployed.length).toBe(before)
      // an answer to a key the task did not ask is ignored: still waiting, nothing deployed
      await tasks(session.client, "tasks/update", {
        taskId,
        inputResponses: { "not-asked": { action: "accept", content: { approve: true } } },
      })
      expect((await tasks(session.client, "tasks/get", { taskId })).status).toBe("input_required")
      expect(deployed.length).toBe(before)
      const ack = await tasks(session.client, "tasks/update", {
        taskId,
        inputResponses: { [key]: { action: "accept", content: { approve: true } } },
      })
      expect(ack).toEqual({})
      const done = await pollUntil(session.client, taskId, terminal)
      expect(done.status).toBe("completed")
      expect(done.result.isError).toBeFalsy()
      expect(deployed.slice(before)).toEqual(["3.1"])
    } finally {
      await session.client.close()
    }
  })

  it("a declined approval completes the task without running the step", async () => {
    const session = await connect()
    try {
      const before = deployed.length
      const { taskId } = (await startTask(session, "skill.release", { version: "3.2" })) as { taskId: string }
      const waiting = await pollUntil(session.client, taskId, (s) => s === "input_required" || terminal(s))
      const key = Object.keys(waiting.inputRequests as object)[0]!
      await tasks(session.client, "tasks/update", {
        taskId,
        inputResponses: { [key]: { action: "decline" } },
      })
      const done = await pollUntil(session.client, taskId, terminal)
      expect(done.status).toBe("completed")
      expect(done.result.isError).toBe(true)
      expect(deployed.length).toBe(before)
    } finally {
      await session.client.close()
    }
  })

  it("an approval-required tool runs only after an accepting tasks/update; a decline runs nothing", async () => {
    const session = await connect()
    try {
      const first = (await startTask(session, "ops.launch", { target: "moon" })) as {
        taskId: string
        status: string
      }
      expect(first.status).toBe("input_required")
      const asked = await tasks(session.client, "tasks/get", { taskId: first.taskId })
      expect(Object.keys(asked.inputRequests)).toEqual(["approval"])
      expect(launched).toEqual([])
      await tasks(session.client, "tasks/update", {
        taskId: first.taskId,
        inputResponses: { approval: { action: "decline" } },
      })
      const declined = await pollUntil(session.client, first.taskId, terminal)
      expect(declined).toMatchObject({ status: "completed", result: { isError: true } })
      expect(launched).toEqual([])

      const second = (await startTask(session, "ops.launch", { target: "mars" })) as { taskId: string }
      await tasks(session.client, "tasks/update", {
        taskId: second.taskId,
        inputResponses: { approval: { action: "accept", content: { approve: true } } },
      })
      const accepted = await pollUntil(session.client, second.taskId, terminal)
      expect(accepted.status).toBe("completed")
      expect(accepted.result.structuredContent).toEqual({ launched: "mars" })
      expect(launched).toEqual(["mars"])
    } finally {
      await session.client.close()
    }
  })

  it("another replica answers a task it does not hold at once (-32602 unknown) and runs nothing", async () => {
    const session = await connect()
    try {
      const { taskId } = (await startTask(session, "jobs.wait", { ms: 1500, tag: "replica" })) as {
        taskId: string
      }
      const capabilities = { extensions: { [TASKS]: {} } }
      for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
        const params = method === "tasks/update" ? { taskId, inputResponses: {} } : { taskId }
        const elsewhere = await modernPost(replica.url, method, params, { capabilities })
        expect(elsewhere.body.error).toMatchObject({ code: -32602, data: { reason: "unknown" } })
        const other = await modernPost(foreign.url, method, params, { capabilities })
        expect(other.body.error).toMatchObject({ code: -32602, data: { reason: "signature" } })
      }
      // the replica running it still has it, uncancelled, and finishes it once
      const done = await pollUntil(session.client, taskId, terminal)
      expect(done.status).toBe("completed")
      expect(aborted).not.toContain("replica")
    } finally {
      await session.client.close()
    }
  })
})
