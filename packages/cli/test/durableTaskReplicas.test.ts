/**
 * A durable skill's task answered by any replica: two gateways (each its own tool runner and durable
 * runner) share one SQLite run store and the server secret, as `toolplane serve` replicas do. A real MCP
 * SDK v2 client starts the skill on the first replica and gets a task; a second SDK v2 client, connected
 * to the other replica only, polls it, approves its waiting step with `tasks/update`, or cancels it with
 * `tasks/cancel`, and both replicas then tell the same state. The step waiting for approval never runs
 * before an accepting answer, nor after a cancel.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { gatewayStack } from "@toolplane/compose"
import { type DurableRunner, durableSkillTool, openDurableRunner } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { definitionBackend } from "@toolplane/foundation/testing"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { durableTaskSource } from "../src/durableTaskSource.js"
import { releaseSkill } from "./helpers/releaseSkill.js"
import { isTerminal, pollTask, recordingTaskResults, taskRequest } from "./helpers/taskResults.js"

const TASKS = "io.modelcontextprotocol/tasks"
const SECRET = "replicas-share-this-secret-0123456789"

const { build, deploy, release, deployed } = releaseSkill()

const dir = mkdtempSync(join(tmpdir(), "toolplane-task-replicas-"))
const replicas: { durable: DurableRunner; server: McpHttpServerHandle }[] = []

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const runner = createRunner({ backends: [definitionBackend([build, deploy], { name: "local" })] })
    const durable = await openDurableRunner({
      storage: join(dir, "runs.db"),
      // a slow first listing (a loaded machine, a remote backend) delays the run's creation past the
      // moment the call becomes a task: the run must be bound to the task before that all the same
      service: {
        listTools: async (request) => {
          await new Promise((resolve) => setTimeout(resolve, 400))
          return runner.listTools(request)
        },
        callTool: (request) => runner.callTool(request),
      },
      elicitationTimeoutMs: 30_000,
      pollMs: 50,
    })
    const gateway = await gatewayStack(runner, { tools: [durableSkillTool(release, durable)] })
    const skills = new Map([[release.name, release]])
    const server = await serveHttp(gateway, {
      sessionSecret: SECRET,
      taskSources: [durableTaskSource(() => ({ runner: durable, skills }))],
    })
    replicas.push({ durable, server })
  }
}, 30_000)

afterAll(async () => {
  for (const { server } of replicas) await server.close()
  for (const { durable } of replicas) await durable.close()
  rmSync(dir, { recursive: true, force: true })
})

/** An SDK v2 client of replica `i`, declaring elicitation and the tasks extension. */
const connect = async (i: number) => {
  const created: Record<string, any>[] = []
  const client = new Client(
    { name: `replica-${i}-client`, version: "1.0.0" },
    {
      capabilities: { elicitation: {}, extensions: { [TASKS]: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL(replicas[i]!.server.url), {
      fetch: recordingTaskResults(created),
    }),
  )
  return { client, created }
}

type Session = Awaited<ReturnType<typeof connect>>

const tasks = (session: Session, method: string, params: Record<string, unknown>) =>
  taskRequest(session.client, method, params)
const pollUntil = (session: Session, taskId: string, done: (status: string) => boolean) =>
  pollTask(session.client, taskId, done)
const terminal = isTerminal

/** Starts the skill on `session`'s replica; its task handle (SDK 2.4.0 refuses `resultType: "task"`). */
const startRelease = async (session: Session, version: string): Promise<string> => {
  const before = session.created.length
  await session.client.callTool({ name: "skill.release", arguments: { version } }).catch(() => {})
  expect(session.created.length).toBe(before + 1)
  return session.created[before]!.taskId as string
}

describe("a durable skill's task on two replicas sharing a run store", () => {
  it("the other replica shows the waiting approval, takes the answer, and both report the outcome", async () => {
    const first = await connect(0)
    const second = await connect(1)
    try {
      const before = deployed.length
      const taskId = await startRelease(first, "4.1")
      const waiting = await pollUntil(second, taskId, (s) => s === "input_required" || terminal(s))
      expect(waiting.status).toBe("input_required")
      expect(Object.keys(waiting.inputRequests)).toEqual(["approve-deploy"])
      const request = waiting.inputRequests["approve-deploy"]
      expect(request.method).toBe("elicitation/create")
      expect(request.params.message).toContain('"ci/deploy"')
      expect(request.params.requestedSchema.properties.approve.type).toBe("boolean")
      // the replica running the call asks the same thing under the same key
      const there = await tasks(first, "tasks/get", { taskId })
      expect(Object.keys(there.inputRequests ?? {})).toEqual(["approve-deploy"])
      expect(deployed.length).toBe(before)

      // an answer under a key the task did not ask runs nothing
      await tasks(second, "tasks/update", {
        taskId,
        inputResponses: { "approve-build": { action: "accept", content: { approve: true } } },
      })
      expect((await tasks(second, "tasks/get", { taskId })).status).toBe("input_required")
      expect(deployed.length).toBe(before)

      const ack = await tasks(second, "tasks/update", {
        taskId,
        inputResponses: { "approve-deploy": { action: "accept", content: { approve: true } } },
      })
      expect(ack).toEqual({})
      const done = await pollUntil(second, taskId, terminal)
      expect(done.status).toBe("completed")
      expect(done.result.isError).toBeFalsy()
      expect(done.result.structuredContent).toEqual({ deployed: "4.1" })
      const runId = done.result._meta["toolplane.dev/run"].runId as string
      const onFirst = await pollUntil(first, taskId, terminal)
      expect(onFirst.status).toBe("completed")
      expect(onFirst.result.structuredContent).toEqual({ deployed: "4.1" })
      expect(deployed.slice(before)).toEqual(["4.1"])
      const step = (await replicas[1]!.durable.show(runId)).steps.find((s) => s.stepId === "deploy")
      expect(step?.decidedBy).toBe("mcp-task")
    } finally {
      await first.client.close()
      await second.client.close()
    }
  }, 30_000)

  it("a cancel on the other replica ends the run for good: cancelled on both, the step never runs", async () => {
    const first = await connect(0)
    const second = await connect(1)
    try {
      const before = deployed.length
      const taskId = await startRelease(first, "4.2")
      await pollUntil(second, taskId, (s) => s === "input_required" || terminal(s))
      expect(await tasks(second, "tasks/cancel", { taskId })).toEqual({})
      expect((await tasks(second, "tasks/get", { taskId })).status).toBe("cancelled")
      expect((await pollUntil(first, taskId, terminal)).status).toBe("cancelled")
      // an approval sent after the cancel is not taken
      await tasks(second, "tasks/update", {
        taskId,
        inputResponses: { "approve-deploy": { action: "accept", content: { approve: true } } },
      })
      const runs = await replicas[0]!.durable.list({ status: "cancelled" })
      expect(runs.some((run) => run.steps.some((s) => s.arguments.version === "4.2"))).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(deployed.length).toBe(before)
      // cancelling again is the same empty ack
      expect(await tasks(second, "tasks/cancel", { taskId })).toEqual({})
    } finally {
      await first.client.close()
      await second.client.close()
    }
  }, 30_000)
})
