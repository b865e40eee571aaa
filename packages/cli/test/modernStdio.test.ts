/**
 * `toolplane serve --transport stdio` (a real process) to clients of both eras: the MCP SDK v2 client
 * pinned to 2026-07-28 (stateless requests on the pipe, no `initialize`) and the SDK v1 client
 * (`initialize`), each listing and calling, at once; a stateless call's progress arrives on the pipe and
 * a multi round-trip elicitation completes. (`auto` negotiation is covered over HTTP in
 * modernClients.test.ts: on stdio its probe starts a second gateway process, too slow for this file.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { childEnv, FIXTURES, serveArgs, TSX } from "./helpers/processes.js"

describe("toolplane serve over stdio, both eras", () => {
  let workDir: string
  let config: string

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), "toolplane-stdio-eras-"))
    config = join(workDir, "gateway.toml")
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        "[[backends]]",
        'name = "conformance"',
        `module = "${join(FIXTURES, "conformanceTools.ts")}"`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
  })

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  })

  const params = () => ({
    command: TSX,
    args: serveArgs(config, "stdio"),
    env: childEnv(),
    stderr: "ignore" as const,
  })

  it.concurrent("SDK v2 client (pinned): stateless list, call with progress, elicitation", async () => {
    const client = new ClientV2(
      { name: "v2", version: "2.0.0" },
      {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      },
    )
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { name: "Ada" },
    }))
    await client.connect(new StdioV2(params()))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("test_tool_with_progress")
      const progress: number[] = []
      const called = await client.callTool(
        { name: "test_tool_with_progress", arguments: {} },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      )
      expect(called.isError).toBeFalsy()
      expect(progress.length).toBeGreaterThan(0)
      const hello = (await client.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      })) as {
        content: { text: string }[]
      }
      expect(hello.content[0]!.text).toBe("Hello, Ada!")
    } finally {
      await client.close()
    }
  }, 60_000)

  it.concurrent("SDK v1 client: initialize, list, call", async () => {
    const client = new ClientV1({ name: "v1", version: "1.0.0" })
    await client.connect(new StdioV1(params()))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("test_simple_text")
      const called = (await client.callTool({ name: "test_simple_text", arguments: {} })) as {
        content: { text: string }[]
      }
      expect(called.content[0]!.text).toBe("This is a simple text response for testing.")
    } finally {
      await client.close()
    }
  }, 60_000)
})
