/**
 * `requestState` over HTTP against `serveHttp` (with bearer auth, so callers differ), with tools that ask
 * before they act and count their runs: the unchanged state is accepted once; any byte changed, another
 * caller, another tool or other arguments, or a replay is refused with `-32602` naming the reason (and
 * the request's id), and the tool never runs.
 */
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp, staticTokenAuth } from "@toolplane/plugin-mcp"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"

describe("requestState over HTTP: refused states run nothing", () => {
  let runs = 0
  let server: McpHttpServerHandle
  const tokens = { alice: "token-alice-0123456789", bob: "token-bob-0123456789" }

  beforeAll(async () => {
    const ask = (name: string) =>
      defineTool({
        id: `ops/${name}`,
        description: "Asks before it acts; counts its runs",
        input: z.object({ target: z.string() }),
        handler: async ({ target }, ctx) => {
          const answer = (await ctx.client.elicitInput!({
            message: `really ${name} ${target}?`,
            requestedSchema: { type: "object", properties: {} },
          })) as { action?: string }
          if (answer.action !== "accept") return "not run"
          runs++
          return `${name} ${target}`
        },
      })
    const runner = createRunner({
      backends: [localBackend([ask("launch"), ask("land")], { name: "ops", approval: "never" })],
    })
    await runner.ready()
    server = await serveHttp(runner, {
      auth: staticTokenAuth([
        { token: tokens.alice, clientId: "alice", scopes: [] },
        { token: tokens.bob, clientId: "bob", scopes: [] },
      ]),
    })
  })

  afterAll(async () => {
    await server?.close()
  })

  let id = 0
  const call = async (token: string, name: string, target: string, extra: Record<string, unknown> = {}) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: {
          name,
          arguments: { target },
          ...extra,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
          },
        },
      }),
    })
    return (await response.json()) as {
      id: number
      result?: { resultType?: string; requestState?: string; content?: unknown }
      error?: { code: number; data?: { reason?: string } }
    }
  }
  const accept = { "elicitation-1": { action: "accept", content: {} } }
  const stateFor = async () => {
    const first = await call(tokens.alice, "ops.launch", "moon")
    expect(first.result?.resultType).toBe("input_required")
    return first.result!.requestState!
  }

  it("an authenticated caller's listing is cache-scoped private (its scopes may filter it)", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${tokens.alice}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    })
    const { result } = (await response.json()) as { result: { cacheScope?: string; tools: unknown[] } }
    expect(result.tools).toHaveLength(2)
    expect(result.cacheScope).toBe("private")
  })

  it("the unchanged state, once: the tool runs once; the replay is refused", async () => {
    const state = await stateFor()
    const before = runs
    const done = await call(tokens.alice, "ops.launch", "moon", {
      inputResponses: accept,
      requestState: state,
    })
    expect(done.result?.content).toEqual([{ type: "text", text: "launch moon" }])
    const replay = await call(tokens.alice, "ops.launch", "moon", {
      inputResponses: accept,
      requestState: state,
    })
    expect(replay.id).toBe(id)
    expect(replay.error?.code).toBe(-32602)
    expect(replay.error?.data?.reason).toBe("replayed")
    expect(runs).toBe(before + 1)
  })

  it("any byte changed: refused, nothing runs", async () => {
    const state = await stateFor()
    const before = runs
    await fc.assert(
      fc.asyncProperty(fc.nat(state.length - 1), fc.constantFrom(..."AbZz09-_.x"), async (index, char) => {
        fc.pre(state[index] !== char)
        const changed = state.slice(0, index) + char + state.slice(index + 1)
        const answer = await call(tokens.alice, "ops.launch", "moon", {
          inputResponses: accept,
          requestState: changed,
        })
        expect(answer.error?.code).toBe(-32602)
      }),
      { numRuns: 40 },
    )
    expect(runs).toBe(before)
  })

  it("another caller, another tool, other arguments: refused with the reason, nothing runs", async () => {
    const state = await stateFor()
    const before = runs
    const bob = await call(tokens.bob, "ops.launch", "moon", { inputResponses: accept, requestState: state })
    expect(bob.error?.data?.reason).toBe("caller")
    const land = await call(tokens.alice, "ops.land", "moon", { inputResponses: accept, requestState: state })
    expect(land.error?.data?.reason).toBe("method")
    const mars = await call(tokens.alice, "ops.launch", "mars", {
      inputResponses: accept,
      requestState: state,
    })
    expect(mars.error?.data?.reason).toBe("arguments")
    expect(runs).toBe(before)
  })
})
