/**
 * Replicas behind a plain round-robin proxy: two `toolplane serve` processes with
 * the same config and cursor secret and a PostgreSQL replica bus, a round-robin HTTP proxy in front
 * (node:http, loopback, no sticky sessions; like common load balancers it tries the next replica when
 * a connection is refused). The MCP SDK client goes through the proxy: it lists every page (page size
 * 3, pages served by alternating replicas), calls tools, gets an approval asked by one replica and
 * answered through the other, sees `tools/list_changed` once per change whichever replica holds its
 * GET stream, and survives a replica killed with SIGKILL: the call in flight on it fails with an error
 * (no hang) and the next calls succeed on the other replica with the same session.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FIXTURES, type HttpGateway, startHttpGateway, stopAllGateways, textOf } from "./helpers/processes.js"
import { roundRobinProxy } from "./helpers/roundRobinProxy.js"

const until = async (check: () => boolean, what: string, ms = 15_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Whether nothing listens at `url` any more. A SIGKILLed process's listening socket can outlive its
 * connections by a moment: a connection accepted into its backlog then is reset, not refused, and no
 * load balancer can tell that from a replica failing mid-request.
 */
const refuses = (url: URL) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

const unavailable = postgresUnavailable()

describe.skipIf(unavailable !== undefined)(
  `toolplane serve replicas behind a round-robin proxy${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let pg: PostgresServer | undefined
    let dir: string | undefined
    let file = ""
    const gateways: HttpGateway[] = []
    let proxy: Awaited<ReturnType<typeof roundRobinProxy>> | undefined
    const config = (extra: string[] = []) =>
      [
        "[server]",
        "page_size = 3",
        "[server.replicas]",
        'url_env = "TOOLPLANE_BUS_URL"',
        "",
        "[[backends]]",
        'name = "rep"',
        `module = "${join(FIXTURES, "replicaTools.ts")}"`,
        "",
        "[[backends]]",
        'name = "ops"',
        `module = "${join(FIXTURES, "approvalTools.ts")}"`,
        "require_approval = true",
        'approval = "elicit"',
        "",
        ...extra,
      ].join("\n")

    beforeAll(async () => {
      pg = await startPostgres()
      dir = mkdtempSync(join(tmpdir(), "toolplane-replicas-"))
      file = join(dir, "toolplane.toml")
      writeFileSync(file, config())
      const env = { TOOLPLANE_BUS_URL: pg.url }
      gateways.push(
        ...(await Promise.all([startHttpGateway(file, { env }), startHttpGateway(file, { env })])),
      )
      proxy = await roundRobinProxy(gateways.map((g) => g.url))
    }, 60_000)

    afterAll(async () => {
      await proxy?.close()
      await Promise.all(gateways.map((g) => g.stop()))
      await stopAllGateways()
      await pg?.stop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    it("serves one session from both replicas: pages, calls, approvals, list changes, a replica killed", async () => {
      const asked: string[] = []
      const client = new Client({ name: "replicas", version: "1.0.0" }, { capabilities: { elicitation: {} } })
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message)
        return { action: "accept", content: { approve: true } }
      })
      let changed = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++
      })
      await client.connect(new StreamableHTTPClientTransport(proxy!.url))
      const hops = proxy!.hops

      // Every page, following cursors across replicas.
      const names: string[] = []
      const listedBy = new Set<number>()
      let cursor: string | undefined
      let pages = 0
      do {
        const before = hops.length
        const page = await client.listTools(cursor !== undefined ? { cursor } : {})
        for (const hop of hops.slice(before)) if (hop.jsonrpc === "tools/list") listedBy.add(hop.replica)
        names.push(...page.tools.map((t) => t.name))
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined)
      expect(pages).toBeGreaterThanOrEqual(4)
      expect(listedBy).toEqual(new Set([0, 1]))
      expect(names).toHaveLength(13)
      expect(new Set(names).size).toBe(13)
      expect(names).toEqual(expect.arrayContaining(["rep.echo", "rep.slow", "rep.tool_9", "ops.launch"]))

      // Calls land on both replicas (their pids differ).
      const pids = new Set<string>()
      for (let i = 0; i < 4; i++) {
        const text = textOf(await client.callTool({ name: "rep.echo", arguments: { message: `m${i}` } }))
        expect(text).toMatch(new RegExp(`^m${i} from \\d+$`))
        pids.add(text.split(" from ")[1]!)
      }
      expect(pids.size).toBe(2)

      // Approval: the replica running the call asks on its response stream; the client's answer (a POST)
      // goes to whichever replica is next, which hands it over through the bus.
      for (let i = 0; i < 2; i++) {
        const before = hops.length
        const result = await client.callTool({ name: "ops.launch", arguments: { target: `moon${i}` } })
        expect(result.isError, JSON.stringify(result)).toBeFalsy()
        expect(textOf(result)).toBe(`launched moon${i}`)
        const call = hops.slice(before).find((h) => h.jsonrpc.startsWith("tools/call"))
        const answer = hops.slice(before).find((h) => h.jsonrpc === "response")
        expect(call && answer).toBeTruthy()
        if (i === 0) expect(answer!.replica).not.toBe(call!.replica)
      }
      expect(asked).toHaveLength(2)
      expect(asked[0]).toContain('"ops/launch"')

      // A list change: both replicas reload the same file; the client hears it once, from the replica
      // holding its GET stream.
      writeFileSync(
        file,
        config(["[[backends]]", 'name = "more"', `module = "${join(FIXTURES, "tools.ts")}"`, ""]),
      )
      await until(() => changed > 0, "tools/list_changed")
      await until(
        () => gateways.every((g) => /reloaded .*added more/.test(g.stderr())),
        "both replicas reloading",
      )
      await new Promise((r) => setTimeout(r, 500))
      expect(changed).toBe(1)
      expect(textOf(await client.callTool({ name: "notes.echo", arguments: { message: "x" } }))).toBe(
        "notes echo: x",
      )

      // A replica dies (SIGKILL) with a call in flight on it.
      const before = hops.length
      const inFlight = client
        .callTool({ name: "rep.slow", arguments: { ms: 20_000 } }, undefined, { timeout: 40_000 })
        .then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        )
      await until(
        () => hops.slice(before).some((h) => h.jsonrpc === "tools/call rep.slow"),
        "the slow call to reach a replica",
      )
      const victim = hops.slice(before).find((h) => h.jsonrpc === "tools/call rep.slow")!.replica
      const started = Date.now()
      process.kill(-gateways[victim]!.child.pid!, "SIGKILL")
      const outcome = await inFlight
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(
        outcome.ok ? (outcome.value as { isError?: boolean }).isError : true,
        JSON.stringify(outcome),
      ).toBe(true)

      // Once the dead replica's port refuses connections, the same session goes on, on the survivor.
      const deadline = Date.now() + 10_000
      while (!(await refuses(gateways[victim]!.url))) {
        if (Date.now() > deadline) throw new Error("the killed replica's port still accepts connections")
        await new Promise((r) => setTimeout(r, 20))
      }
      for (let i = 0; i < 3; i++) {
        const text = textOf(await client.callTool({ name: "rep.echo", arguments: { message: `after${i}` } }))
        expect(text).toMatch(/^after\d from \d+$/)
      }
      expect((await client.listTools()).tools.length).toBe(3)
      const launched = await client.callTool({ name: "ops.launch", arguments: { target: "mars" } })
      expect(textOf(launched)).toBe("launched mars")
      await client.close()
    }, 60_000)
  },
)
