/**
 * Approval through the user (`approval = "elicit"`): a gateway (openGateway + serveHttp, in process)
 * whose tool needs approval asks the calling MCP client through elicitation. Accept runs the call once,
 * decline and cancel run nothing (ApprovalDenied), a client without elicitation gets ApprovalRequired;
 * `"deny"` and `"allow"` decide without asking.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { type Gateway, openGateway } from "../src/gateway.js"
import { FIXTURES } from "./helpers/processes.js"

const launches = () => (globalThis as { __toolplaneLaunches?: number }).__toolplaneLaunches ?? 0

const config = (approval: string) =>
  parseConfig(
    [
      "[[backends]]",
      'name = "ops"',
      'module = "./approvalTools.ts"',
      "require_approval = true",
      ...(approval ? [`approval = "${approval}"`] : []),
      "",
    ].join("\n"),
  )

const errorTag = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.["toolplane.dev/error"] as { _tag?: string } | undefined)?._tag

describe("approval through the user via MCP elicitation", () => {
  const gateways: Gateway[] = []
  const servers: McpHttpServerHandle[] = []
  const serve = async (approval: string) => {
    const gateway = await openGateway(config(approval), {
      baseDir: FIXTURES,
      env: { TOOLPLANE_CURSOR_SECRET: "approval-test-secret-0123456789" },
    })
    gateways.push(gateway)
    const server = await serveHttp(gateway.service, { catalog: gateway.catalog })
    servers.push(server)
    return server
  }
  let elicit: McpHttpServerHandle

  /** A client that answers every elicitation with `answer` (and records what it was asked). */
  const client = async (url: string, answer?: Record<string, unknown>) => {
    const asked: { message: string }[] = []
    const c = new Client(
      { name: "user", version: "1.0.0" },
      { capabilities: answer ? { elicitation: {} } : {} },
    )
    if (answer)
      c.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params as { message: string })
        return answer as never
      })
    await c.connect(new StreamableHTTPClientTransport(new URL(url)))
    return { c, asked }
  }

  beforeAll(async () => {
    elicit = await serve("elicit")
  }, 30_000)

  afterAll(async () => {
    for (const s of servers) await s.close()
    for (const g of gateways) await g.close()
  })

  it("accept runs the call exactly once, after showing tool, backend and arguments", async () => {
    const before = launches()
    const { c, asked } = await client(elicit.url, { action: "accept", content: { approve: true } })
    const result = await c.callTool({ name: "ops.launch", arguments: { target: "moon" } })
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: "text", text: "launched moon" }])
    expect(launches()).toBe(before + 1)
    expect(asked).toHaveLength(1)
    expect(asked[0]!.message).toMatch(/"ops\/launch" \(backend "ops"\)/)
    expect(asked[0]!.message).toContain('"target": "moon"')
    await c.close()
  })

  it.each([
    [{ action: "decline" }, /declined/],
    [{ action: "cancel" }, /cancelled/],
    [{ action: "accept", content: { approve: false } }, /did not approve/],
  ])("%j runs nothing and fails with ApprovalDenied", async (answer, reason) => {
    const before = launches()
    const { c, asked } = await client(elicit.url, answer)
    const result = (await c.callTool({ name: "ops.launch", arguments: { target: "mars" } })) as never
    expect(errorTag(result)).toBe("ApprovalDenied")
    expect(JSON.stringify((result as { content: unknown }).content)).toMatch(reason)
    expect(asked).toHaveLength(1)
    expect(launches()).toBe(before)
    await c.close()
  })

  it("a client without elicitation gets ApprovalRequired and nothing runs", async () => {
    const before = launches()
    const { c } = await client(elicit.url)
    const result = (await c.callTool({ name: "ops.launch", arguments: { target: "venus" } })) as never
    expect(errorTag(result)).toBe("ApprovalRequired")
    expect(launches()).toBe(before)
    await c.close()
  })

  it('"deny" refuses without asking and "allow" runs without asking', async () => {
    const deny = await serve("deny")
    const allow = await serve("allow")
    const before = launches()
    const denied = await client(deny.url, { action: "accept", content: { approve: true } })
    expect(
      errorTag((await denied.c.callTool({ name: "ops.launch", arguments: { target: "x" } })) as never),
    ).toBe("ApprovalDenied")
    expect(denied.asked).toHaveLength(0)
    expect(launches()).toBe(before)
    const allowed = await client(allow.url, { action: "decline" })
    const result = await allowed.c.callTool({ name: "ops.launch", arguments: { target: "y" } })
    expect(result.isError).toBeFalsy()
    expect(allowed.asked).toHaveLength(0)
    expect(launches()).toBe(before + 1)
    await denied.c.close()
    await allowed.c.close()
  })
})
