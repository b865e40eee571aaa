/**
 * Limits of held upstream calls, against `serveHttp` with bearer auth in front of a real 2025 upstream
 * (stdio, SDK v1) whose tool asks twice mid-run and records each start and each cancellation: a held
 * call whose answers come too late is cancelled upstream and its retry refused (`-32050`); a caller
 * beyond its bound of held calls is refused (`-32052`) and the extra call cancelled upstream; a retry
 * that reaches a replica without a replica bus is refused (`-32051`) naming the holding replica, which
 * still resumes it. No call body ever starts twice.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRunner, type ToolRunner } from "@toolplane/exec"
import {
  HeldCallErrorCode,
  type McpHttpServerHandle,
  mcpBackend,
  serveHttp,
  staticTokenAuth,
} from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernPost } from "./helpers/modernPost.js"
import { FIXTURES } from "./helpers/processes.js"

const SECRET = "held-call-limits-secret-0123456789"
const ALICE = "token-alice-0123456789"

describe("held upstream calls: deadline, bounds, a replica without a bus", () => {
  let dir = ""
  let startsFile = ""
  let runner: ToolRunner
  let holder: McpHttpServerHandle
  let other: McpHttpServerHandle
  const lines = () => readFileSync(startsFile, "utf8").split("\n")
  const count = (line: string) => lines().filter((l) => l === line).length
  const until = async (check: () => boolean, what: string, ms = 5000) => {
    const end = Date.now() + ms
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  const book = (url: string, trip: string, extra: Record<string, unknown> = {}) =>
    modernPost(url, "tools/call", { name: "booking.book", arguments: { trip }, ...extra }, { token: ALICE })

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolplane-held-limits-"))
    startsFile = join(dir, "starts")
    writeFileSync(startsFile, "")
    runner = createRunner({
      backends: [
        mcpBackend(
          {
            name: "booking",
            stdio: {
              command: process.execPath,
              args: [join(FIXTURES, "twiceAskingServer.mjs")],
              env: { STARTS_FILE: startsFile },
            },
          },
          { requiresApproval: false },
        ),
      ],
    })
    await runner.ready()
    const auth = staticTokenAuth([{ token: ALICE, clientId: "alice", scopes: [] }])
    holder = await serveHttp(runner, {
      sessionSecret: SECRET,
      auth,
      heldCalls: { timeoutMs: 1000, maxPerCaller: 1 },
    })
    other = await serveHttp(runner, { sessionSecret: SECRET, auth })
  }, 30_000)

  afterAll(async () => {
    await holder?.close()
    await other?.close()
    await runner?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("answers that come too late: the call is cancelled upstream and its retry refused with -32050", async () => {
    const first = await book(holder.url, "paris")
    expect(first.body.result?.resultType).toBe("input_required")
    await until(() => count("cancelled paris") === 1, "the upstream call to be cancelled")
    const late = await book(holder.url, "paris", {
      inputResponses: { "elicitation-1": { action: "accept", content: { seat: "2B" } } },
      requestState: first.body.result?.requestState,
    })
    expect(late.body.error?.code).toBe(HeldCallErrorCode.Gone)
    expect(late.body.error?.message).toMatch(/held call is over/)
    expect(count("paris")).toBe(1)
  })

  it("beyond the caller's bound: -32052, the extra call is cancelled upstream; the held one goes on", async () => {
    const held = await book(holder.url, "tokyo")
    expect(held.body.result?.resultType).toBe("input_required")
    const extra = await book(holder.url, "kyoto")
    expect(extra.body.error?.code).toBe(HeldCallErrorCode.TooMany)
    expect(extra.body.error?.data).toEqual({ limit: 1, scope: "caller" })
    await until(() => count("cancelled kyoto") === 1, "the extra call to be cancelled upstream")
    const next = await book(holder.url, "tokyo", {
      inputResponses: { "elicitation-1": { action: "accept", content: { seat: "3C" } } },
      requestState: held.body.result?.requestState,
    })
    expect(Object.keys(next.body.result?.inputRequests as object)).toEqual(["elicitation-2"])
    const done = await book(holder.url, "tokyo", {
      inputResponses: { "elicitation-2": { action: "accept", content: { sure: true } } },
      requestState: next.body.result?.requestState,
    })
    expect(done.body.result?.resultType).toBe("complete")
    expect(JSON.stringify(done.body.result?.content)).toMatch(/"booked 3C on tokyo/)
    expect(count("tokyo")).toBe(1)
    expect(count("cancelled tokyo")).toBe(0)
  })

  it("a retry on a replica without a bus is refused with -32051 naming the holder, which still resumes it", async () => {
    const first = await book(holder.url, "nice")
    const answers = { "elicitation-1": { action: "accept", content: { seat: "9F" } } }
    const elsewhere = await book(other.url, "nice", {
      inputResponses: answers,
      requestState: first.body.result?.requestState,
    })
    expect(elsewhere.body.error?.code).toBe(HeldCallErrorCode.Elsewhere)
    expect(elsewhere.body.error?.data?.reason).toBe("no-bus")
    expect(elsewhere.body.error?.message).toMatch(/held by replica \S+, and this replica has no replica bus/)
    const there = await book(holder.url, "nice", {
      inputResponses: answers,
      requestState: first.body.result?.requestState,
    })
    expect(Object.keys(there.body.result?.inputRequests as object)).toEqual(["elicitation-2"])
    expect(count("nice")).toBe(1)
  })
})
