/**
 * Held upstream calls across replicas: two `toolplane serve` processes sharing the cursor secret and a
 * PostgreSQL replica bus behind a plain round-robin proxy, each with its own 2025 upstream whose tool
 * asks twice mid-run (every start of the tool body is counted in one shared file). The SDK v2 client
 * (2026-07-28) answers both questions while its requests alternate replicas: the retry that reaches the
 * other replica is forwarded to the replica holding the call, and the tool body starts once. When the
 * replica holding the call is killed between the question and the answer, the retry fails fast with
 * `-32051` naming that replica, and the tool does not run again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernPost } from "./helpers/modernPost.js"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"
import { roundRobinProxy } from "./helpers/roundRobinProxy.js"

const unavailable = postgresUnavailable()

/** Whether nothing listens at `url` any more. */
const refuses = (url: URL) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

describe.skipIf(unavailable !== undefined)(
  `held upstream calls on replicas behind a round-robin proxy${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let pg: PostgresServer | undefined
    let dir = ""
    let startsFile = ""
    const gateways: HttpGateway[] = []
    let proxy: Awaited<ReturnType<typeof roundRobinProxy>> | undefined
    const starts = (trip: string) =>
      readFileSync(startsFile, "utf8")
        .split("\n")
        .filter((line) => line === trip).length

    beforeAll(async () => {
      pg = await startPostgres()
      dir = mkdtempSync(join(tmpdir(), "toolplane-held-replicas-"))
      startsFile = join(dir, "starts")
      writeFileSync(startsFile, "")
      const file = join(dir, "toolplane.toml")
      writeFileSync(
        file,
        [
          "[server.replicas]",
          'url_env = "TOOLPLANE_BUS_URL"',
          "",
          "[[backends]]",
          'name = "booking"',
          `mcp = { command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(join(FIXTURES, "twiceAskingServer.mjs"))}], env = { STARTS_FILE = ${JSON.stringify(startsFile)} } }`,
          "require_approval = false",
          "",
        ].join("\n"),
      )
      const env = { TOOLPLANE_BUS_URL: pg.url }
      gateways.push(
        ...(await Promise.all([startHttpGateway(file, { env }), startHttpGateway(file, { env })])),
      )
      proxy = await roundRobinProxy(gateways.map((g) => g.url))
    }, 60_000)

    afterAll(async () => {
      await proxy?.close()
      await stopAllGateways()
      await pg?.stop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    it("the v2 client's answers reach the holding replica through either replica; the tool runs once", async () => {
      const client = new Client(
        { name: "held-replicas", version: "1.0.0" },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
      )
      client.setRequestHandler("elicitation/create", async (request) =>
        String((request.params as { message?: string }).message).startsWith("Which seat")
          ? { action: "accept" as const, content: { seat: "7C" } as Record<string, string | boolean> }
          : { action: "accept" as const, content: { sure: true } as Record<string, string | boolean> },
      )
      await client.connect(new StreamableHTTPClientTransport(proxy!.url))
      try {
        const first = proxy!.hops.length
        const result = (await client.callTool({ name: "booking.book", arguments: { trip: "oslo" } })) as {
          content: { text: string }[]
        }
        expect(result.content[0]!.text).toBe("booked 7C on oslo (1 start(s) here)")
        const calls = proxy!.hops.slice(first).filter((h) => h.jsonrpc === "tools/call booking.book")
        // the call and its two retries, on alternating replicas: one retry was forwarded over the bus
        expect(calls.length).toBe(3)
        expect(new Set(calls.map((h) => h.replica)).size).toBe(2)
        expect(starts("oslo")).toBe(1)
      } finally {
        await client.close()
      }
    }, 30_000)

    it("the holding replica is killed before the answer: the retry fails fast with -32051, nothing runs again", async () => {
      const first = await modernPost(proxy!.url.href, "tools/call", {
        name: "booking.book",
        arguments: { trip: "rome" },
      })
      expect(first.body.result?.resultType).toBe("input_required")
      expect(Object.keys(first.body.result?.inputRequests as object)).toEqual(["elicitation-1"])
      const owner = proxy!.hops.at(-1)!.replica
      expect(starts("rome")).toBe(1)
      process.kill(-gateways[owner]!.child.pid!, "SIGKILL")
      const deadline = Date.now() + 10_000
      while (!(await refuses(gateways[owner]!.url))) {
        if (Date.now() > deadline) throw new Error("the killed replica still listens")
        await new Promise((r) => setTimeout(r, 50))
      }
      const began = Date.now()
      const retry = await modernPost(proxy!.url.href, "tools/call", {
        name: "booking.book",
        arguments: { trip: "rome" },
        inputResponses: { "elicitation-1": { action: "accept", content: { seat: "1A" } } },
        requestState: first.body.result?.requestState,
      })
      const took = Date.now() - began
      expect(proxy!.hops.at(-1)!.replica).toBe(1 - owner)
      expect(retry.body.error?.code).toBe(-32051)
      expect(retry.body.error?.message).toMatch(/held by replica \S+, which did not answer/)
      expect(typeof retry.body.error?.data?.replica).toBe("string")
      expect(took).toBeLessThan(6000)
      expect(starts("rome")).toBe(1)
      // starting over works on the surviving replica (a new call, asked again)
      const again = await modernPost(proxy!.url.href, "tools/call", {
        name: "booking.book",
        arguments: { trip: "rome" },
      })
      expect(again.body.result?.resultType).toBe("input_required")
    }, 30_000)
  },
)
