/**
 * A tool that asks the client for its roots, a tool that reads the client's declared capabilities, a
 * prompt and a resource that ask the user for input (`ctx.client.listRoots`, `ctx.client.capabilities`,
 * `ctx.client.elicitInput` in a `ResourceProvider`), called by real clients of both eras: the MCP SDK
 * v2 client pinned to 2026-07-28 (the requests come back as `input_required` rounds its driver answers
 * from its handlers) and the SDK v1 client (`roots/list` and `elicitation/create` on its session),
 * against `serveHttp` and against `toolplane serve` fronting it (a modern upstream: its
 * `input_required` answers to tools/call, prompts/get and resources/read are answered through the
 * gateway's caller).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool, type ExecutionContext, PromptNotFound, ResourceNotFound } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const ROOT = { uri: "file:///work/project", name: "project" }

const workspaceRoots = defineTool({
  namespace: "asks",
  name: "workspace_roots",
  description: "Lists the client's roots",
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    const answer = (await ctx.client.listRoots!()) as { roots?: { uri: string }[] }
    return `roots: ${(answer.roots ?? []).map((r) => r.uri).join(", ")}`
  },
})

const clientCapabilities = defineTool({
  namespace: "asks",
  name: "client_capabilities",
  description: "Names the capabilities the client declared",
  annotations: { readOnlyHint: true },
  handler: (_args, ctx) =>
    Object.keys(ctx.client.capabilities ?? {})
      .sort()
      .join(","),
})

/** Asks the user for one string (`value`), naming the input for a 2026-07-28 client. */
const ask = async (ctx: ExecutionContext, message: string, key: string): Promise<string> => {
  const answer = (await ctx.client.elicitInput!({
    message,
    requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
    _meta: { "toolplane.dev/inputKey": key },
  })) as { action?: string; content?: { value?: string } }
  return answer.action === "accept" ? (answer.content?.value ?? "") : `(${answer.action})`
}

/** Read-only, so the runner retries it on a retryable failure: stopping to ask must not be one. */
const pickTopic = defineTool({
  namespace: "asks",
  name: "pick_topic",
  description: "Asks the user for a topic",
  annotations: { readOnlyHint: true },
  // its input unnamed: a 2026-07-28 client sees the default key, elicitation-1
  handler: async (_args, ctx) => {
    const answer = (await ctx.client.elicitInput!({
      message: "Which topic?",
      requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
    })) as { content?: { value?: string } }
    return `topic: ${answer.content?.value}`
  },
})

const provider = {
  capabilities: () => ({ resources: {}, prompts: {} }),
  listResources: async () => [{ uri: "asks://secret", name: "secret", mimeType: "text/plain" }],
  readResource: async (uri: string, ctx: ExecutionContext) => {
    if (uri !== "asks://secret") throw new ResourceNotFound({ uri })
    const passphrase = await ask(ctx, "Passphrase?", "passphrase")
    return { contents: [{ uri, mimeType: "text/plain", text: `unlocked with ${passphrase}` }] }
  },
  listPrompts: async () => [{ name: "briefing", description: "A briefing on a topic the user picks" }],
  getPrompt: async (name: string, _args: Readonly<Record<string, string>>, ctx: ExecutionContext) => {
    if (name !== "briefing") throw new PromptNotFound({ name, suggestions: [] })
    const topic = await ask(ctx, "Which topic?", "topic")
    return { messages: [{ role: "user" as const, content: { type: "text", text: `Briefing on ${topic}` } }] }
  },
}

/** What each client answers: its roots, and per elicitation message a value. */
const ANSWERS: Readonly<Record<string, string>> = { "Passphrase?": "open sesame", "Which topic?": "tides" }

interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>
  readResource(params: { uri: string }): Promise<{ contents: { text?: string }[] }>
  getPrompt(params: { name: string }): Promise<{ messages: { content: { text?: string } }[] }>
  close(): Promise<void>
}

type Era = "v2 (2026-07-28)" | "v1 (2025-11-25)"

/** A client of `era` declaring `capabilities`, answering roots and elicitation; `asked` counts requests. */
const connect = async (
  era: Era,
  url: string,
  capabilities: Record<string, unknown>,
  asked: string[],
): Promise<AnyClient> => {
  const elicit = (params: { message: string }) => {
    asked.push(`elicitation/create ${params.message}`)
    return { action: "accept" as const, content: { value: ANSWERS[params.message] ?? "?" } }
  }
  const roots = () => {
    asked.push("roots/list")
    console.log("ROOTS", era, new Error().stack?.split("\n").slice(2, 9).join(" / "))
    return { roots: [ROOT] }
  }
  if (era === "v1 (2025-11-25)") {
    const client = new ClientV1({ name: "v1", version: "1.0.0" }, { capabilities })
    if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, async () => roots())
    if (capabilities.elicitation)
      client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params as never))
    await client.connect(new TransportV1(new URL(url)))
    return client as unknown as AnyClient
  }
  const client = new ClientV2(
    { name: "v2", version: "2.0.0" },
    { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  )
  if (capabilities.roots) client.setRequestHandler("roots/list", async () => roots())
  if (capabilities.elicitation)
    client.setRequestHandler("elicitation/create", async (request) => elicit(request.params as never))
  await client.connect(new TransportV2(new URL(url)))
  return client as unknown as AnyClient
}

const textOf = (result: unknown): string =>
  ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("")

describe("tools, prompts and resource reads that ask the client (roots, elicitation, capabilities)", () => {
  let direct: McpHttpServerHandle
  let gateway: HttpGateway
  let workDir: string

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "toolplane-client-input-"))
    const runner = createRunner({
      backends: [
        localBackend([workspaceRoots, clientCapabilities, pickTopic], { name: "asks", approval: "never" }),
      ],
    })
    await runner.ready()
    direct = await serveHttp(runner, {
      naming: "name",
      catalog: resourceCatalog([{ name: "asks", provider }], { promptNames: "name" }),
    })
    const config = join(workDir, "gateway.toml")
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        "[[backends]]",
        'name = "asks"',
        `mcp = { url = "${direct.url}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    gateway = await startHttpGateway(config)
  }, 60_000)

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    await direct?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  }, 30_000)

  const targets = [
    ["serveHttp", () => direct.url],
    ["toolplane serve fronting it", () => gateway.url.href],
  ] as const
  const eras: Era[] = ["v2 (2026-07-28)", "v1 (2025-11-25)"]
  const cases = targets.flatMap(([target, url]) => eras.map((era) => [target, era, url] as const))

  it.each(cases)("%s, %s client: roots, capabilities, a prompt and a read that ask", async (_t, era, url) => {
    const asked: string[] = []
    const client = await connect(era, url(), { roots: {}, elicitation: {} }, asked)
    try {
      const roots = await client.callTool({ name: "workspace_roots", arguments: {} })
      expect(textOf(roots)).toBe(`roots: ${ROOT.uri}`)
      expect(asked).toEqual(["roots/list"])
      const capabilities = await client.callTool({ name: "client_capabilities", arguments: {} })
      expect(textOf(capabilities).split(",")).toEqual(expect.arrayContaining(["elicitation", "roots"]))
      expect(textOf(capabilities)).not.toContain("sampling")
      const prompt = await client.getPrompt({ name: "briefing" })
      expect(prompt.messages[0]!.content.text).toBe("Briefing on tides")
      const read = await client.readResource({ uri: "asks://secret" })
      expect(read.contents[0]!.text).toBe("unlocked with open sesame")
      expect(asked).toEqual([
        "roots/list",
        "elicitation/create Which topic?",
        "elicitation/create Passphrase?",
      ])
    } finally {
      await client.close()
    }
  })

  it.each(targets)("%s: a read-only tool that stops to ask is not retried (asked once)", async (_t, url) => {
    const asked: string[] = []
    const client = await connect("v2 (2026-07-28)", url(), { elicitation: {} }, asked)
    try {
      const picked = await client.callTool({ name: "pick_topic", arguments: {} })
      expect(textOf(picked)).toBe("topic: tides")
      expect(asked).toEqual(["elicitation/create Which topic?"])
    } finally {
      await client.close()
    }
  })

  it.each(targets)(
    "%s: a v2 client without the roots capability gets -32021, nothing asked",
    async (_t, url) => {
      const asked: string[] = []
      const client = await connect("v2 (2026-07-28)", url(), { elicitation: {} }, asked)
      try {
        const outcome = await client.callTool({ name: "workspace_roots", arguments: {} }).then(
          (result) => ({ result }),
          (error: { code?: number; message?: string }) => ({ error }),
        )
        expect(outcome).toMatchObject({ error: { code: -32021 } })
        expect(String((outcome as { error: { message: string } }).error.message)).toContain("roots")
        expect(asked).toEqual([])
      } finally {
        await client.close()
      }
    },
  )
})
