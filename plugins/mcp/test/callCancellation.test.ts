/**
 * How a call served over HTTP (raw and node transports) learns it is cancelled, and what its client then
 * gets: the client's `notifications/cancelled` aborts the call's signal with the client's reason and
 * nothing is answered; a DELETE of the session aborts it with "the session closed" and the POST gets
 * 404; a client that goes away aborts it with "the client disconnected"; a shutdown aborts it with an
 * Error and the client still gets an answer; and a call that finished is never aborted afterwards.
 */
import { defineTool, type ToolService, toolOf } from "@toolplane/foundation"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type McpHttpServerHandle, serveHttp } from "../src/index.js"

const VERSION = "2025-11-25"

/** A service whose `t.wait` runs until its signal aborts, recording the signal of every call. */
const waitingService = () => {
  const signals: AbortSignal[] = []
  let started: () => void = () => {}
  const next = () =>
    new Promise<void>((resolve) => {
      started = resolve
    })
  const wait = defineTool({
    id: "t/wait",
    description: "Waits until cancelled",
    handler: async (_args, ctx) => {
      signals.push(ctx.signal)
      started()
      await new Promise((_resolve, reject) => {
        if (ctx.signal.aborted) reject(ctx.signal.reason)
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })
      })
      return "never"
    },
  })
  const echo = defineTool({
    id: "t/echo",
    description: "Echoes",
    input: z.object({ text: z.string() }),
    handler: ({ text }, ctx) => {
      signals.push(ctx.signal)
      return text
    },
  })
  const tools = [toolOf(wait), toolOf(echo)]
  const service: ToolService = {
    listTools: async () => ({ tools }),
    callTool: async (request) =>
      (request.name === "t/wait" ? wait : echo).invoke(request.arguments ?? {}, request.context),
  }
  return { service, signals, next }
}

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": VERSION,
}

const open = async (handle: McpHttpServerHandle) => {
  const init = await fetch(handle.url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }),
  })
  const session = init.headers.get("mcp-session-id")!
  await init.text()
  const headers = { ...HEADERS, "mcp-session-id": session }
  const post = (message: unknown, signal?: AbortSignal) =>
    fetch(handle.url, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
      ...(signal ? { signal } : {}),
    })
  const call = (id: number, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
    post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, signal)
  return { session, headers, post, call }
}

/** Whether `promise` is still pending after `ms`. */
const pendingAfter = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms)),
  ])

describe.each(["raw", "node"] as const)("cancelling a call (%s transport)", (transport) => {
  let handle: McpHttpServerHandle | undefined

  afterEach(async () => {
    await handle?.close()
    handle = undefined
  })

  it("aborts the call with the client's reason on notifications/cancelled and answers nothing", async () => {
    const { service, signals, next } = waitingService()
    handle = await serveHttp(service, { transport })
    const client = await open(handle)
    const stop = new AbortController()
    const started = next()
    const call = client.call(1, "t.wait", {}, stop.signal).then((res) => res.text())
    await started
    const cancelled = await client.post({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, reason: "stop" },
    })
    expect(cancelled.status).toBe(202)
    await expect.poll(() => signals[0]!.aborted).toBe(true)
    expect(signals[0]!.reason).toBe("stop")
    expect(await pendingAfter(call, 300)).toBe(true)
    stop.abort()
    await call.catch(() => {})
    // The session goes on.
    const after = await client.call(2, "t.echo", { text: "next" })
    expect(await after.text()).toContain('"text":"next"')
  })

  it("aborts the call with 'the session closed' on DELETE and answers its POST 404", async () => {
    const { service, signals, next } = waitingService()
    handle = await serveHttp(service, { transport })
    const client = await open(handle)
    const started = next()
    const call = client.call(1, "t.wait")
    await started
    const deleted = await fetch(handle.url, { method: "DELETE", headers: client.headers })
    expect(deleted.status).toBe(200)
    const answer = await call
    expect(answer.status).toBe(404)
    expect(await answer.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found" },
      id: null,
    })
    expect(signals[0]!.aborted).toBe(true)
    expect(signals[0]!.reason).toBe("the session closed")
  })

  it("aborts the call with 'the client disconnected' when its client goes away", async () => {
    const { service, signals, next } = waitingService()
    handle = await serveHttp(service, { transport })
    const client = await open(handle)
    const gone = new AbortController()
    const started = next()
    const call = client.call(1, "t.wait", {}, gone.signal).catch(() => undefined)
    await started
    gone.abort()
    await call
    await expect.poll(() => signals[0]!.aborted).toBe(true)
    expect(signals[0]!.reason).toBe("the client disconnected")
  })

  it("aborts the call on shutdown with an Error and still answers it", async () => {
    const { service, signals, next } = waitingService()
    const served = await serveHttp(service, { transport, shutdownGraceMs: 50 })
    const client = await open(served)
    const started = next()
    const call = client.call(1, "t.wait")
    await started
    await served.close()
    const answer = await call
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { id: number; result: { isError?: boolean; content: unknown } }
    expect(body.id).toBe(1)
    expect(body.result.isError).toBe(true)
    expect(JSON.stringify(body.result.content)).toMatch(/shutting down/)
    expect(signals[0]!.reason).toBeInstanceOf(Error)
    expect((signals[0]!.reason as Error).message).toBe("the server is shutting down")
  })

  it("never aborts a call that finished, neither on shutdown nor when its session closes", async () => {
    const { service, signals } = waitingService()
    const served = await serveHttp(service, { transport })
    const client = await open(served)
    for (let id = 1; id <= 3; id++)
      expect(await (await client.call(id, "t.echo", { text: `${id}` })).text()).toContain(`"text":"${id}"`)
    await fetch(served.url, { method: "DELETE", headers: client.headers })
    await served.close()
    expect(signals).toHaveLength(3)
    expect(signals.map((s) => s.aborted)).toEqual([false, false, false])
  })
})
