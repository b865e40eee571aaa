/**
 * The MCP client backend forwards an upstream server's sampling/elicitation requests and log messages to
 * the caller of the call they belong to, also when calls of several callers are in flight at once (over
 * Streamable HTTP, what arrives on a call's response stream is that call's).
 */
import { createRunner } from "@toolplane/exec"
import { type ExecutionContext, type LogEntry, makeContext } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpBackend, type McpHttpServerHandle, mcpBackend, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { conformanceTools } from "./fixtures/conformanceTools.js"
import { textOf } from "./helpers/processes.js"

describe("forwarding server requests and logs through an MCP backend to the right caller", () => {
  let server: McpHttpServerHandle
  let backend: McpBackend

  beforeAll(async () => {
    const runner = createRunner({
      backends: [localBackend(conformanceTools, { name: "conformance", approval: "never" })],
    })
    await runner.ready()
    server = await serveHttp(runner, { naming: "name" })
    backend = mcpBackend({ name: "up", http: { url: server.url } }, { requiresApproval: false })
    await backend.connect()
  })

  afterAll(async () => {
    await backend?.close()
    await server?.close()
  })

  const caller = (session: string, logs: LogEntry[] = []): ExecutionContext =>
    makeContext({
      sessionId: session,
      onLog: (entry) => logs.push(entry),
      client: {
        elicitInput: async (params) => {
          await new Promise((resolve) => setTimeout(resolve, 30))
          return {
            action: "accept",
            content: {
              username: session,
              email: `${session}@example.com`,
              asked: String(params.message),
              meta: JSON.stringify(params._meta ?? null),
            },
          }
        },
        createMessage: async () => ({
          role: "assistant",
          content: { type: "text", text: `model of ${session}` },
          model: "m",
        }),
      },
    })

  it("answers each concurrent elicitation and sampling request from its own caller", async () => {
    const sessions = ["alice", "bob", "carol"]
    const results = await Promise.all(
      sessions.flatMap((s) => [
        backend.execute({ toolId: "up/test_elicitation", arguments: { message: `hello ${s}` } }, caller(s)),
        backend.execute({ toolId: "up/test_sampling", arguments: { prompt: "p" } }, caller(s)),
      ]),
    )
    sessions.forEach((s, i) => {
      const elicited = textOf(results[2 * i])
      expect(elicited).toContain(`"username":"${s}"`)
      expect(elicited).toContain(`hello ${s}`) // the request's params reached the right caller
      expect(elicited).not.toContain("toolplane.dev/origin") // the routing mark is removed
      expect(textOf(results[2 * i + 1])).toBe(`LLM response: model of ${s}`)
    })
  })

  it("delivers each call's log messages to its own caller only", async () => {
    const logs: Record<string, LogEntry[]> = { alice: [], bob: [] }
    await Promise.all(
      Object.keys(logs).map((s) =>
        backend.execute({ toolId: "up/test_tool_with_logging", arguments: {} }, caller(s, logs[s])),
      ),
    )
    for (const entries of Object.values(logs))
      expect(entries.map((e) => e.data)).toEqual([
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ])
  })

  it("refuses a request when the caller cannot answer it (the upstream tool fails with that reason)", async () => {
    const failure = await backend
      .execute(
        { toolId: "up/test_elicitation", arguments: { message: "x" } },
        makeContext({ sessionId: "nobody" }),
      )
      .then(
        () => undefined,
        (error: Error) => error,
      )
    expect(failure).toMatchObject({ _tag: "ExecutionFailed" })
    expect(String(failure?.message) + JSON.stringify(failure)).toMatch(
      /elicitation\/create: the caller does not support it/,
    )
  })
})
