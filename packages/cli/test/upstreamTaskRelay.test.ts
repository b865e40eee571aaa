/**
 * Upstream tasks relayed through the gateway: a real MCP SDK v2 client (`@modelcontextprotocol/client`,
 * pinned to 2026-07-28, declaring the tasks extension) → `toolplane serve --transport http` (two
 * subprocess replicas sharing the cursor secret, static bearer tokens for two callers) → the SDK v2 task
 * fixture (plugins/mcp/test/fixtures/taskServer.ts over HTTP), whose tools answer with a task. The client
 * gets the gateway's own handle, polls it, answers its input with `tasks/update` and cancels one (the
 * upstream sees `tasks/cancel`); a tampered handle and another caller's handle are refused before
 * anything reaches the upstream; the other replica answers a handle the first issued.
 *
 * SDK v2 2.4.0's `callTool` rejects `resultType: "task"`, so the handle is read from the raw response.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernPost } from "./helpers/modernPost.js"
import { type HttpGateway, REPO, startHttpGateway, stopAllGateways, TSX } from "./helpers/processes.js"
import { isTerminal, pollTask, recordingTaskResults, taskRequest } from "./helpers/taskResults.js"

const TASKS = "io.modelcontextprotocol/tasks"
const FIXTURE = join(REPO, "plugins", "mcp", "test", "fixtures", "taskServer.ts")
const TOKENS = { TP_TOKEN_ALICE: "alice-token-0123456789abcdef", TP_TOKEN_BOB: "bob-token-0123456789abcdef" }
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

let dir: string
let upstream: ChildProcess | undefined
let upstreamUrl: string
let first: HttpGateway
let second: HttpGateway

const startUpstream = async (): Promise<string> => {
  const child = spawn(TSX, [FIXTURE, "--http"], { stdio: ["ignore", "pipe", "inherit"], cwd: REPO })
  upstream = child
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", () => reject(new Error("the task fixture exited")))
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    })
  })
  return `http://127.0.0.1:${port}/mcp`
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolplane-task-relay-"))
  upstreamUrl = await startUpstream()
  const config = join(dir, "toolplane.toml")
  writeFileSync(
    config,
    [
      "[server]",
      'tool_names = "name"',
      "",
      "[server.auth]",
      'tokens = [{ env = "TP_TOKEN_ALICE", client = "alice", scopes = ["all"] }, { env = "TP_TOKEN_BOB", client = "bob", scopes = ["all"] }]',
      "",
      "[server.auth.scopes.all]",
      'tools = ["re:.*"]',
      "",
      "[[backends]]",
      'name = "t"',
      `mcp = { url = "${upstreamUrl}" }`,
      'protocol = "2026-07-28"',
      "require_approval = false",
      "",
    ].join("\n"),
  )
  // two replicas of one configuration (the same cursor secret signs their handles)
  ;[first, second] = await Promise.all([
    startHttpGateway(config, { env: TOKENS }),
    startHttpGateway(config, { env: TOKENS }),
  ])
}, 90_000)

afterAll(async () => {
  await first?.stop()
  await second?.stop()
  await stopAllGateways()
  upstream?.kill()
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 30_000)

/** An SDK v2 client of `gateway` as `token`'s caller, declaring the tasks extension. */
const connect = async (gateway: HttpGateway, token: string) => {
  const created: Record<string, any>[] = []
  const recording = recordingTaskResults(created)
  const client = new Client(
    { name: "relay", version: "1.0.0" },
    {
      capabilities: { elicitation: {}, extensions: { [TASKS]: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  )
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      fetch: recording,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  )
  return { client, created }
}

type Session = Awaited<ReturnType<typeof connect>>

const startTask = async (session: Session, name: string, args: Record<string, unknown>) => {
  const before = session.created.length
  const error = await session.client.callTool({ name, arguments: args }).then(
    () => undefined,
    (e: unknown) => e as { message: string },
  )
  expect(error?.message).toMatch(/Unsupported result type 'task'/)
  expect(session.created.length).toBe(before + 1)
  return session.created[before]!
}

const tasks = (session: Session, method: string, params: Record<string, unknown>) =>
  taskRequest(session.client, method, params)
const pollUntil = (session: Session, taskId: string, done: (status: string) => boolean) =>
  pollTask(session.client, taskId, done, 30)
const terminal = isTerminal

interface Stats {
  counts: Record<string, number>
  cancelled: string[]
}

/** What the upstream received (its `stats` tool, called without the extension). */
const stats = async (): Promise<Stats> => {
  const answer = await modernPost(
    first.url.href,
    "tools/call",
    { name: "stats", arguments: {} },
    { token: TOKENS.TP_TOKEN_ALICE },
  )
  const content = answer.body.result?.content as { text: string }[]
  return JSON.parse(content[0]!.text)
}

/** The claims a handle carries (its body is signed, not secret). */
const claimsOf = (handle: string) =>
  JSON.parse(Buffer.from(handle.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>

describe("upstream tasks relayed by toolplane serve to a modern client", () => {
  it("answers with the gateway's own handle and polls it to the upstream's result", async () => {
    const alice = await connect(first, TOKENS.TP_TOKEN_ALICE)
    try {
      const task = await startTask(alice, "slow", { ms: 400, text: "relayed" })
      expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number) })
      const handle = task.taskId as string
      expect(handle.startsWith("tp1.")).toBe(true)
      // the upstream's id (a UUID) is neither the handle nor readable in it
      expect(handle).not.toMatch(UUID)
      expect(JSON.stringify(claimsOf(handle))).not.toMatch(UUID)
      expect(JSON.stringify(task)).not.toContain("toolplane.dev/upstreamTask")
      const done = await pollUntil(alice, handle, terminal)
      expect(done).toMatchObject({ taskId: handle, status: "completed" })
      expect(done.result.content[0].text).toBe("done relayed")
    } finally {
      await alice.client.close()
    }
  })

  it("shows the upstream task's input request and delivers the answer with tasks/update", async () => {
    const alice = await connect(first, TOKENS.TP_TOKEN_ALICE)
    try {
      const handle = (await startTask(alice, "ask", {})).taskId as string
      const waiting = await pollUntil(alice, handle, (s) => s !== "working")
      expect(waiting.status).toBe("input_required")
      expect(waiting.inputRequests.name.method).toBe("elicitation/create")
      const ack = await tasks(alice, "tasks/update", {
        taskId: handle,
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
      })
      // (the SDK client takes resultType off: an empty ack)
      expect(ack).toEqual({})
      const done = await pollUntil(alice, handle, terminal)
      expect(done.status).toBe("completed")
      expect(done.result.content[0].text).toBe("Hello, Ada!")
    } finally {
      await alice.client.close()
    }
  })

  it("cancels: the upstream gets tasks/cancel for its task", async () => {
    const alice = await connect(first, TOKENS.TP_TOKEN_ALICE)
    try {
      const before = await stats()
      const handle = (await startTask(alice, "hang", {})).taskId as string
      expect(await tasks(alice, "tasks/cancel", { taskId: handle })).toEqual({})
      const after = await stats()
      expect(after.cancelled.length).toBe(before.cancelled.length + 1)
      const upstreamId = after.cancelled.at(-1)!
      expect(handle).not.toContain(upstreamId)
      expect((await tasks(alice, "tasks/get", { taskId: handle })).status).toBe("cancelled")
    } finally {
      await alice.client.close()
    }
  })

  it("refuses a tampered handle and another caller's handle; nothing reaches the upstream", async () => {
    const alice = await connect(first, TOKENS.TP_TOKEN_ALICE)
    try {
      const handle = (await startTask(alice, "hang", {})).taskId as string
      const before = await stats()
      const last = handle.at(-2) === "A" ? "B" : "A"
      const tampered = `${handle.slice(0, -2)}${last}${handle.at(-1)}`
      for (const [taskId, token, reason] of [
        [tampered, TOKENS.TP_TOKEN_ALICE, "signature"],
        [handle, TOKENS.TP_TOKEN_BOB, "caller"],
      ] as const)
        for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const answer = await modernPost(
            first.url.href,
            method,
            { taskId, ...(method === "tasks/update" ? { inputResponses: {} } : {}) },
            { token, capabilities: { extensions: { [TASKS]: {} } } },
          )
          expect(answer.body.error?.code, `${method} ${reason}`).toBe(-32602)
          expect(answer.body.error?.data?.reason).toBe(reason)
        }
      const after = await stats()
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"])
        expect(after.counts[method] ?? 0, method).toBe(before.counts[method] ?? 0)
      await tasks(alice, "tasks/cancel", { taskId: handle })
    } finally {
      await alice.client.close()
    }
  })

  it("another replica with the same backend and secret answers a handle the first issued", async () => {
    const onFirst = await connect(first, TOKENS.TP_TOKEN_ALICE)
    const onSecond = await connect(second, TOKENS.TP_TOKEN_ALICE)
    try {
      const handle = (await startTask(onFirst, "slow", { ms: 200, text: "elsewhere" })).taskId as string
      const done = await pollUntil(onSecond, handle, terminal)
      expect(done).toMatchObject({ taskId: handle, status: "completed" })
      expect(done.result.content[0].text).toBe("done elsewhere")
    } finally {
      await onFirst.client.close()
      await onSecond.client.close()
    }
  })

  it("a client without the extension gets the result: the gateway follows the upstream task", async () => {
    const answer = await modernPost(
      first.url.href,
      "tools/call",
      { name: "slow", arguments: { ms: 100, text: "followed" } },
      { token: TOKENS.TP_TOKEN_BOB },
    )
    expect(answer.body.result).toMatchObject({ resultType: "complete" })
    expect((answer.body.result!.content as { text: string }[])[0]!.text).toBe("done followed")
    expect(JSON.stringify(answer.body.result)).not.toContain("toolplane.dev/upstreamTask")
  })
})
