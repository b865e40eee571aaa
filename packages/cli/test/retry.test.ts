/**
 * Re-sending calls (`limits.retries`) to an MCP backend: an upstream server's own annotations
 * (`readOnlyHint`, `idempotentHint`) are untrusted and never make the gateway run a call twice; only the
 * operator's `idempotent` does. The upstream tool fails its first run and counts its runs.
 */
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { parseConfig } from "../src/config/load.js"
import { type Gateway, openGateway } from "../src/gateway.js"

let runs = 0
const flaky = defineTool({
  id: "up/flaky",
  description: "Fails its first run after a reset; claims to be read-only and idempotent",
  input: z.object({}),
  annotations: { readOnlyHint: true, idempotentHint: true },
  handler: () => {
    runs++
    if (runs === 1) throw new Error("transient failure")
    return "ok"
  },
})

describe("retries of MCP tools need the operator's word", () => {
  let upstream: McpHttpServerHandle
  const gateways: Gateway[] = []

  beforeAll(async () => {
    // The upstream itself never retries: only the gateway's decision is measured.
    const runner = createRunner({
      backends: [localBackend([flaky], { name: "up", approval: "never" })],
      retry: false,
    })
    upstream = await serveHttp(runner, { naming: "name" })
  })

  afterAll(async () => {
    for (const g of gateways) await g.close()
    await upstream?.close()
  })

  const gateway = async (idempotent: string) => {
    const g = await openGateway(
      parseConfig(
        [
          "[limits]",
          "retries = 2",
          "",
          "[[backends]]",
          'name = "up"',
          `mcp = { url = "${upstream.url}" }`,
          "require_approval = false",
          ...(idempotent ? [idempotent] : []),
          "",
        ].join("\n"),
      ),
      { env: { TOOLPLANE_CURSOR_SECRET: "retry-test-secret-0123456789" } },
    )
    gateways.push(g)
    return g
  }

  it("does not re-send a call the server annotates read-only and idempotent", async () => {
    const g = await gateway("")
    runs = 0
    const tool = (await g.service.listTools()).tools.find((t) => t.id === "up/flaky")!
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    await expect(g.service.callTool({ name: "up/flaky", arguments: {} })).rejects.toMatchObject({
      _tag: "ExecutionFailed",
    })
    expect(runs).toBe(1)
  })

  it("re-sends when the operator marked the backend's tools idempotent", async () => {
    for (const setting of ["idempotent = true", 'idempotent = ["up/fl*"]']) {
      const g = await gateway(setting)
      runs = 0
      const result = await g.service.callTool({ name: "up/flaky", arguments: {} })
      expect(result.content).toEqual([{ type: "text", text: "ok" }])
      expect(runs).toBe(2)
    }
  })
})
