/**
 * A 2025 upstream whose tool asks twice in the middle of its run (after a side effect), behind
 * `toolplane serve`, called by the MCP SDK v2 client in 2026-07-28 (stateless) mode that answers the
 * input requests: the upstream tool body starts exactly once (the gateway holds the upstream call open
 * while the client answers and resumes it with the answers), and the client gets the complete result.
 * Answers that come after `server.held_calls.timeout_ms` find the call cancelled upstream (`-32050`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernPost } from "./helpers/modernPost.js"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

describe("toolplane serve holds a 2025 upstream call while a modern client answers its questions", () => {
  let dir: string
  let startsFile: string
  let gateway: HttpGateway

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-held-"))
    startsFile = join(dir, "starts")
    writeFileSync(startsFile, "")
    const config = join(dir, "toolplane.toml")
    writeFileSync(
      config,
      [
        "[server.held_calls]",
        "timeout_ms = 2000",
        "",
        "[[backends]]",
        'name = "booking"',
        `mcp = { command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(join(FIXTURES, "twiceAskingServer.mjs"))}], env = { STARTS_FILE = ${JSON.stringify(startsFile)} } }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    gateway = await startHttpGateway(config)
  }, 45_000)

  afterAll(async () => {
    await stopAllGateways()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("the upstream tool that asks twice runs once; the v2 client gets the booking", async () => {
    const client = new Client(
      { name: "held", version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    )
    const asked: string[] = []
    client.setRequestHandler("elicitation/create", async (request) => {
      const message = String((request.params as { message?: string }).message)
      asked.push(message)
      return message.startsWith("Which seat")
        ? { action: "accept" as const, content: { seat: "12A" } as Record<string, string | boolean> }
        : { action: "accept" as const, content: { sure: true } as Record<string, string | boolean> }
    })
    await client.connect(new StreamableHTTPClientTransport(gateway.url))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      const result = (await client.callTool({ name: "booking.book", arguments: { trip: "lisbon" } })) as {
        content: { text: string }[]
        isError?: boolean
      }
      expect(asked).toEqual(["Which seat on lisbon?", "Book seat 12A on lisbon?"])
      expect(result.isError).toBeFalsy()
      expect(result.content[0]!.text).toBe("booked 12A on lisbon (1 start(s) here)")
      const starts = readFileSync(startsFile, "utf8").split("\n").filter(Boolean)
      expect(starts).toEqual(["lisbon"])
    } finally {
      await client.close()
    }
  }, 30_000)

  it("answers after server.held_calls.timeout_ms: the upstream call was cancelled, the retry gets -32050", async () => {
    const lines = () => readFileSync(startsFile, "utf8").split("\n")
    const first = await modernPost(gateway.url.href, "tools/call", {
      name: "booking.book",
      arguments: { trip: "porto" },
    })
    expect(first.body.result?.resultType).toBe("input_required")
    const end = Date.now() + 10_000
    while (!lines().includes("cancelled porto")) {
      if (Date.now() > end) throw new Error("the held call was not cancelled upstream")
      await new Promise((r) => setTimeout(r, 50))
    }
    const late = await modernPost(gateway.url.href, "tools/call", {
      name: "booking.book",
      arguments: { trip: "porto" },
      inputResponses: { "elicitation-1": { action: "accept", content: { seat: "4D" } } },
      requestState: first.body.result?.requestState,
    })
    expect(late.body.error?.code).toBe(-32050)
    expect(lines().filter((l) => l === "porto")).toHaveLength(1)
  }, 20_000)
})
