/**
 * Durable approvals through MCP elicitation: a durable skill served by a gateway (compose's gatewayStack
 * over a real runner, plugin-mcp's serveHttp) and called by the real MCP SDK client. When a step needs
 * approval and the caller supports elicitation, the caller is asked: accept approves (with the
 * arguments it edited, re-validated: an invalid edit is asked again), decline rejects; a caller without
 * elicitation, or one that does not answer (silent, or disconnected), leaves the run suspended in the
 * run file, where `toolplane runs approve` and a runner's poll finish it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { defineSkill, gatewayStack } from "@toolplane/compose"
import { type DurableRunner, durableSkillTool, openDurableRunner, RUN_META_KEY } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliIO, run as cli } from "../src/cli.js"

const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-elicit-"))
const file = join(dir, "runs.db")

const deployed: { version: unknown; env: unknown }[] = []
const build = defineTool({
  id: "ci/build",
  input: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
  annotations: { readOnlyHint: true },
  handler: async (args: Record<string, unknown>) => ({ version: args.version }),
})
const deploy = defineTool({
  id: "ci/deploy",
  input: {
    type: "object",
    properties: {
      version: { type: "string", pattern: "^\\d+\\.\\d+$", description: "major.minor" },
      env: { type: "string", enum: ["staging", "production"] },
    },
    required: ["version", "env"],
    additionalProperties: false,
  },
  annotations: { destructiveHint: true },
  handler: async (args: Record<string, unknown>) => {
    deployed.push({ version: args.version, env: args.env })
    return { deployed: args.version, to: args.env }
  },
})
const release = defineSkill({
  name: "release",
  inputSchema: { type: "object", properties: { version: { type: "string" } }, required: ["version"] },
  steps: [
    { id: "build", tool: "ci/build", inputs: { version: { $ref: "$input#/version" } } },
    {
      id: "deploy",
      tool: "ci/deploy",
      inputs: { version: { $ref: "build#/version" }, env: "production" },
    },
  ],
})

let durable: DurableRunner
let server: McpHttpServerHandle
beforeAll(async () => {
  const runner = createRunner({ backends: [definitionBackend([build, deploy], { name: "ci" })] })
  durable = await openDurableRunner({ storage: file, service: runner, elicitationTimeoutMs: 1500 })
  const gateway = await gatewayStack(runner, { tools: [durableSkillTool(release, durable)] })
  server = await serveHttp(gateway)
}, 30_000)
afterAll(async () => {
  await server?.close()
  await durable?.close()
  rmSync(dir, { recursive: true, force: true })
})

type Answer = Record<string, unknown> | "silent" | ((request: any) => Promise<Record<string, unknown>>)

/** A client answering elicitation requests with `answers` in turn (none: no elicitation capability). */
const connect = async (answers?: Answer[]) => {
  const asked: any[] = []
  const client = new Client(
    { name: "user", version: "1.0.0" },
    { capabilities: answers ? { elicitation: {} } : {} },
  )
  if (answers)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params)
      const answer = answers[Math.min(asked.length, answers.length) - 1]!
      if (answer === "silent") return new Promise(() => {}) as never
      return (typeof answer === "function" ? await answer(request.params) : answer) as never
    })
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
  return { client, asked }
}

const runOf = (result: any) => result._meta[RUN_META_KEY] as { runId: string; status: string }

describe("durable approvals through MCP elicitation", () => {
  it("asks the connected caller; accept with edited arguments approves them and the run completes", async () => {
    const { client, asked } = await connect([
      { action: "accept", content: { approve: true, env: "staging", version: "1.2" } },
    ])
    const tools = await client.listTools()
    const name = tools.tools.find((t) => t.name.includes("release"))!.name
    const before = deployed.length
    const result: any = await client.callTool({ name, arguments: { version: "1.1" } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ deployed: "1.2", to: "staging" })
    expect(asked).toHaveLength(1)
    expect(asked[0].message).toContain('"ci/deploy" (step "deploy")')
    expect(asked[0].requestedSchema.properties).toMatchObject({
      approve: { type: "boolean" },
      env: { type: "string", enum: ["staging", "production"], default: "production" },
      version: { type: "string", default: "1.1" },
    })
    expect(deployed.slice(before)).toEqual([{ version: "1.2", env: "staging" }])
    const run = await durable.show(runOf(result).runId)
    expect(run.status).toBe("completed")
    expect(run.steps[1]).toMatchObject({
      status: "completed",
      approvedArguments: { version: "1.2", env: "staging" },
    })
    await client.close()
  })

  it("re-validates edited arguments: an invalid edit is asked again", async () => {
    const { client, asked } = await connect([
      { action: "accept", content: { approve: true, version: "latest" } },
      { action: "accept", content: { approve: true, version: "2.0" } },
    ])
    const result: any = await client.callTool({ name: "skill.release", arguments: { version: "1.9" } })
    expect(result.isError).toBeFalsy()
    expect(asked).toHaveLength(2)
    expect(asked[1].message).toMatch(/^Those arguments are invalid: \/version/)
    expect(result.structuredContent).toEqual({ deployed: "2.0", to: "production" })
    await client.close()
  })

  it("decline rejects: the run fails with ApprovalDenied and the step never runs", async () => {
    const { client } = await connect([{ action: "decline" }])
    const before = deployed.length
    const result: any = await client.callTool({ name: "skill.release", arguments: { version: "3.0" } })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({
      status: "failed",
      failedStep: "deploy",
      error: { _tag: "ApprovalDenied" },
    })
    expect(deployed.length).toBe(before)
    const run = await durable.show(runOf(result).runId)
    expect(run.steps[1]).toMatchObject({
      status: "rejected",
      reason: "declined by the caller",
      executions: 0,
    })
    await client.close()
  })

  it("a caller without elicitation gets a suspended run, finished after `toolplane runs approve`", async () => {
    const { client } = await connect()
    const result: any = await client.callTool({ name: "skill.release", arguments: { version: "4.0" } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({
      status: "suspended",
      waiting: { stepId: "deploy", tool: "ci/deploy", arguments: { version: "4.0", env: "production" } },
    })
    const { runId } = runOf(result)
    expect(result.content[0].text).toContain(`toolplane runs approve ${runId} deploy`)
    let stderr = ""
    const io: CliIO = { stdout: () => {}, stderr: (s) => void (stderr += s), env: {}, cwd: dir }
    expect(await cli(["runs", "approve", runId, "deploy", "--runs", file], io)).toBe(0)
    expect(stderr).toBe("")
    const [done] = await durable.poll()
    expect(done).toMatchObject({ runId, status: "completed" })
    await client.close()
  })

  it("no answer (silent caller, then a disconnected one) leaves the run suspended durably", async () => {
    const silent = await connect(["silent"])
    const result: any = await silent.client.callTool({ name: "skill.release", arguments: { version: "5.0" } })
    expect(silent.asked).toHaveLength(1)
    expect(result.structuredContent).toMatchObject({ status: "suspended" })
    await silent.client.close()

    // This caller goes away while it is being asked: the call cannot answer, the run waits in the file.
    let gone!: () => void
    const left = new Promise<void>((resolve) => {
      gone = resolve
    })
    const leaving = await connect([
      async () => {
        gone()
        return new Promise(() => {})
      },
    ])
    void leaving.client.callTool({ name: "skill.release", arguments: { version: "6.0" } }).catch(() => {})
    await left
    await leaving.client.close()
    const deadline = Date.now() + 15_000
    let waiting = (await durable.list()).filter((r) => r.status === "suspended")
    while (waiting.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
      waiting = (await durable.list()).filter((r) => r.status === "suspended")
    }
    expect(waiting.map((r) => r.steps[0]!.arguments)).toEqual([{ version: "5.0" }, { version: "6.0" }])
    expect(waiting.every((r) => r.steps[1]!.status === "awaiting_approval")).toBe(true)
  })
})
