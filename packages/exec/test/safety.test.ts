/**
 * Safety properties found in review: a swapped tool never runs on a stale approval or validation, a call
 * cancelled before it starts never reaches the backend or spends a token, cancelled waiters free their
 * queue places, refused calls give their tokens back, deterministic failures are not retried.
 */
import {
  Cancelled,
  defineBackend,
  defineTool,
  ExecutionFailed,
  makeTool,
  RateLimited,
  runDefinition,
  Timeout,
  type ToolDefinition,
  textResult,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner } from "../src/index.js"
import { SECRET } from "./helpers.js"

describe("runner safety", () => {
  it("a call cancelled or past its deadline before it starts never reaches the backend", async () => {
    let executed = 0
    const backend = defineBackend({
      name: "charge",
      toolSchemas: () => [makeTool({ id: "pay/charge" })],
      execute: () => {
        executed++
        return textResult("charged")
      },
      requiresApproval: () => false,
    })
    const runner = createRunner({
      backends: [backend],
      cursorSecret: SECRET,
      limits: { tools: { "pay/charge": { rateLimit: { ratePerSecond: 1, burst: 1, mode: "reject" } } } },
    })
    const controller = new AbortController()
    controller.abort(new Error("stop"))
    const cancelled = await runner
      .callTool({ name: "pay/charge", context: { signal: controller.signal } })
      .catch((e) => e)
    expect(cancelled).toBeInstanceOf(Cancelled)
    const late = await runner
      .callTool({ name: "pay/charge", context: { deadline: Date.now() - 1 } })
      .catch((e) => e)
    expect(late).toBeInstanceOf(Timeout)
    expect(executed).toBe(0)
    await runner.callTool({ name: "pay/charge" })
    expect(executed).toBe(1)
  })

  it("cancelled waiters do not count against maxQueue", async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    const slow = defineTool({
      id: "q/slow",
      annotations: { readOnlyHint: true },
      handler: () => gate.then(() => "done"),
    })
    const backend = defineBackend({
      name: "q",
      toolSchemas: () => [slow],
      execute: (call, ctx) => slow.invoke(call.arguments, ctx),
      requiresApproval: () => false,
    })
    const runner = createRunner({
      backends: [backend],
      cursorSecret: SECRET,
      limits: { tools: { "q/slow": { concurrency: { max: 1, maxQueue: 2 } } } },
    })
    const holder = runner.callTool({ name: "q/slow" })
    const waiters = [0, 1].map(() =>
      runner.callTool({ name: "q/slow", context: { timeoutMs: 20 } }).catch((e) => e),
    )
    for (const w of await Promise.all(waiters)) expect(w).toBeInstanceOf(Timeout)
    const queued = runner.callTool({ name: "q/slow" })
    release()
    expect((await queued).content).toEqual([{ type: "text", text: "done" }])
    await holder
  })

  it("a call refused by a concurrency cap gives its rate-limit token back", async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    const op = defineTool({
      id: "a/op",
      annotations: { readOnlyHint: true },
      handler: () => gate.then(() => "ok"),
    })
    const backend = defineBackend({
      name: "a",
      toolSchemas: () => [op],
      execute: (call, ctx) => op.invoke(call.arguments, ctx),
      requiresApproval: () => false,
    })
    const runner = createRunner({
      backends: [backend],
      cursorSecret: SECRET,
      limits: {
        tools: {
          "a/op": {
            rateLimit: { ratePerSecond: 0.01, burst: 2, mode: "reject" },
            concurrency: { max: 1, mode: "reject" },
          },
        },
      },
    })
    const first = runner.callTool({ name: "a/op" })
    const refused = await runner.callTool({ name: "a/op" }).catch((e) => e)
    expect(refused).toBeInstanceOf(RateLimited)
    expect(refused.key).toContain("concurrency")
    release()
    await first
    expect((await runner.callTool({ name: "a/op" })).content[0]).toEqual({ type: "text", text: "ok" })
  })

  it("does not retry a failure marked not retryable", async () => {
    let attempts = 0
    const backend = defineBackend({
      name: "exit",
      toolSchemas: () => [makeTool({ id: "x/grep", annotations: { readOnlyHint: true } })],
      execute: (call) => {
        attempts++
        throw new ExecutionFailed({
          toolId: call.toolId,
          cause: { name: "ExitStatus", message: "exit 2" },
          retryable: false,
        })
      },
      requiresApproval: () => false,
    })
    const runner = createRunner({
      backends: [backend],
      cursorSecret: SECRET,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
    })
    expect(await runner.callTool({ name: "x/grep" }).catch((e) => e)).toBeInstanceOf(ExecutionFailed)
    expect(attempts).toBe(1)
  })

  it("validates two tools whose schemas share an $id", async () => {
    const schema = (n: string) => ({
      $id: "https://example.com/args",
      type: "object",
      properties: { [n]: { type: "number" } },
      required: [n],
    })
    const a = defineTool({
      id: "s/a",
      input: schema("a"),
      annotations: { readOnlyHint: true },
      handler: () => "a",
    })
    const b = defineTool({
      id: "s/b",
      input: schema("b"),
      annotations: { readOnlyHint: true },
      handler: () => "b",
    })
    const backend = defineBackend({
      name: "s",
      toolSchemas: () => [a, b],
      execute: (call, ctx) => (call.toolId === "s/a" ? a : b).invoke(call.arguments, ctx),
      requiresApproval: () => false,
    })
    const runner = createRunner({ backends: [backend], cursorSecret: SECRET })
    expect((await runner.callTool({ name: "s/a", arguments: { a: 1 } })).content[0]).toEqual({
      type: "text",
      text: "a",
    })
    expect((await runner.callTool({ name: "s/b", arguments: { b: 1 } })).content[0]).toEqual({
      type: "text",
      text: "b",
    })
  })

  it("a tool swapped at run time is validated and approved as the new tool", async () => {
    const tools = new Map<string, ToolDefinition<any>>([
      [
        "fs/op",
        defineTool({
          id: "fs/op",
          annotations: { readOnlyHint: true },
          input: z.object({ path: z.string() }),
          handler: ({ path }) => `read ${path}`,
        }),
      ],
    ])
    const listeners = new Set<() => void>()
    const backend = defineBackend({
      name: "fs",
      toolSchemas: () => [...tools.values()],
      // Like the local backend: trusts the runner's validation (`validated: true`).
      execute: (call, ctx) => runDefinition(tools.get(call.toolId)!, call, ctx),
      requiresApproval: (id) => tools.get(id)?.annotations?.readOnlyHint !== true,
      onToolsChanged: (l) => {
        listeners.add(l)
        return () => listeners.delete(l)
      },
    })
    const runner = createRunner({ backends: [backend], cursorSecret: SECRET })
    await runner.callTool({ name: "fs/op", arguments: { path: "/x" } })
    tools.set(
      "fs/op",
      defineTool({
        id: "fs/op",
        annotations: { destructiveHint: true },
        input: z.object({ path: z.string(), force: z.literal(true) }),
        handler: ({ path }) => `DELETED ${path}`,
      }),
    )
    for (const l of listeners) l()
    const sameTick = await runner.callTool({ name: "fs/op", arguments: { path: "/x" } }).catch((e) => e)
    expect(sameTick._tag).toBe("InvalidArguments")
    const approvedOnly = await runner
      .callTool({ name: "fs/op", arguments: { path: "/x", force: true } })
      .catch((e) => e)
    expect(approvedOnly._tag).toBe("ApprovalRequired")
  })
})
