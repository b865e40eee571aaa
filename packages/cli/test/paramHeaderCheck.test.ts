/**
 * `Mcp-Param-*` headers of 2026-07-28 calls served by `serveHttp`: a tool whose input schema mirrors an
 * argument into a header (`x-mcp-header`) is called by a real SDK v2 client (which sends the header), and
 * by hand with the header missing, different, orphaned or badly encoded: each refused with `-32020`
 * (HTTP 400) naming the header, and the tool never runs.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { modernPost } from "./helpers/modernPost.js"

/** A 2026-07-28 `tools/call` of `name` over plain HTTP, with the standard headers plus `headers`. */
const callTool = (
  url: string,
  name: string,
  id: number,
  args: Record<string, unknown>,
  headers: Record<string, string>,
) =>
  modernPost<{
    id: number
    result?: { content?: { text?: string }[] }
    error?: { code: number; message: string; data?: { mismatch?: { header?: string } } }
  }>(url, "tools/call", { name, arguments: args }, { id, headers, capabilities: {} })

describe("Mcp-Param-* headers against the body", () => {
  let runs = 0
  let server: McpHttpServerHandle

  beforeAll(async () => {
    const deploy = defineTool({
      id: "ops/deploy",
      description: "Deploys to a region; counts its runs",
      input: z.object({
        region: z.string().meta({ "x-mcp-header": "Region" }),
        replicas: z.number().int().meta({ "x-mcp-header": "Replicas" }).optional(),
        note: z.string().optional(),
      }),
      handler: async ({ region }) => {
        runs++
        return `deployed to ${region}`
      },
    })
    const runner = createRunner({ backends: [localBackend([deploy], { name: "ops", approval: "never" })] })
    await runner.ready()
    server = await serveHttp(runner)
  })

  afterAll(async () => {
    await server?.close()
  })

  let id = 0
  const call = (args: Record<string, unknown>, headers: Record<string, string>) =>
    callTool(server.url, "ops.deploy", ++id, args, headers)

  it("serves the annotation and a real SDK v2 client's call, headers and all", async () => {
    const client = new Client(
      { name: "v2", version: "2.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    )
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      const { tools } = await client.listTools()
      const schema = tools.find((t) => t.name === "ops.deploy")?.inputSchema as {
        properties: Record<string, Record<string, unknown>>
      }
      expect(schema.properties.region?.["x-mcp-header"]).toBe("Region")
      const before = runs
      const result = await client.callTool({
        name: "ops.deploy",
        arguments: { region: "Zürich, CH", replicas: 3 },
      })
      expect(result.isError).not.toBe(true)
      expect(result.content).toEqual([{ type: "text", text: "deployed to Zürich, CH" }])
      expect(runs).toBe(before + 1)
    } finally {
      await client.close()
    }
  })

  it("accepts plain, Base64 and decimal forms that agree with the body", async () => {
    const before = runs
    const plain = await call(
      { region: "eu-west-1", replicas: 2 },
      {
        "mcp-param-region": "eu-west-1",
        "mcp-param-replicas": "2",
      },
    )
    expect(plain.status, JSON.stringify(plain.body)).toBe(200)
    const encoded = await call(
      { region: "Zürich" },
      { "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=` },
    )
    expect(encoded.status, JSON.stringify(encoded.body)).toBe(200)
    expect(runs).toBe(before + 2)
  })

  it.each([
    ["missing", { region: "eu-west-1" }, {}, "Mcp-Param-Region"],
    ["different", { region: "eu-west-1" }, { "mcp-param-region": "us-east-1" }, "Mcp-Param-Region"],
    [
      "a different number",
      { region: "eu-west-1", replicas: 2 },
      { "mcp-param-region": "eu-west-1", "mcp-param-replicas": "20" },
      "Mcp-Param-Replicas",
    ],
    [
      "orphaned (no such argument in the body)",
      { region: "eu-west-1" },
      { "mcp-param-region": "eu-west-1", "mcp-param-replicas": "2" },
      "Mcp-Param-Replicas",
    ],
    ["badly encoded", { region: "eu-west-1" }, { "mcp-param-region": "=?base64?//79?=" }, "Mcp-Param-Region"],
    // "Hello" is SGVsbG8= in Base64: without its padding the value is not valid Base64
    [
      "Base64 without its padding",
      { region: "Hello" },
      { "mcp-param-region": "=?base64?SGVsbG8?=" },
      "Mcp-Param-Region",
    ],
    [
      "Base64 with a character outside the alphabet",
      { region: "Hello" },
      { "mcp-param-region": "=?base64?SGVs!bG8=?=" },
      "Mcp-Param-Region",
    ],
  ] as const)("refuses a header that is %s, and runs nothing", async (_what, args, headers, named) => {
    const before = runs
    const { status, body } = await call(args, headers)
    expect(status).toBe(400)
    expect(body.id).toBe(id)
    expect(body.error?.code).toBe(-32020)
    expect(body.error?.data?.mismatch?.header).toBe(named)
    expect(body.error?.message).toContain(named)
    expect(runs).toBe(before)
  })
})

describe("the catalogue behind the header check and the name map", () => {
  it("is listed once after a tool change, for both", async () => {
    const deploy = defineTool({
      id: "ops/deploy",
      input: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
      handler: async ({ region }) => `deployed to ${region}`,
    })
    const runner = createRunner({ backends: [localBackend([deploy], { name: "ops", approval: "never" })] })
    await runner.ready()
    // listings of the whole catalogue (no caller context), as the exposure makes them
    let catalogueListings = 0
    const server = await serveHttp(
      {
        listTools: (request) => {
          if (request?.context === undefined && request?.cursor === undefined) catalogueListings++
          return runner.listTools(request)
        },
        callTool: (request) => runner.callTool(request),
      },
      { naming: "name" },
    )
    const callDeploy = async () =>
      (await callTool(server.url, "deploy", 1, { region: "eu-west-1" }, { "mcp-param-region": "eu-west-1" }))
        .body
    try {
      expect((await callDeploy()).result?.content?.[0]?.text).toBe("deployed to eu-west-1")
      server.notifyToolsChanged()
      catalogueListings = 0
      expect((await callDeploy()).result?.content?.[0]?.text).toBe("deployed to eu-west-1")
      expect(catalogueListings).toBe(1)
    } finally {
      await server.close()
    }
  })
})
