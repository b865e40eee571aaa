/**
 * Task handles of the tasks extension: a handle the server signed reaches its task only unchanged, for
 * the caller and tool it was issued for, before its expiry (properties over the signer, and over the task
 * host, where a refused handle must neither answer an input the task waits on nor cancel it).
 */
import { createHmac } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InputRound } from "../src/server/modern/inputRequests.js"
import { RequestStates } from "../src/server/modern/requestState.js"
import { TaskHandles } from "../src/server/modern/taskHandles.js"
import { TASKS_EXTENSION, TaskHost } from "../src/server/modern/tasks.js"

const SECRET = "secret-0123456789abcdef"
const CAPS = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } }
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ "

/** Changes one character of `text`. */
const mutate = (text: string, index: number, char: string) =>
  text.slice(0, index) + char + text.slice(index + 1)

describe("TaskHandles (the signer)", () => {
  it("accepts its own handle for its caller, and refuses any changed character", () => {
    const handles = new TaskHandles(SECRET)
    const { handle, claims } = handles.sign("alice", "ops.launch", Date.now() + 60_000)
    expect(handles.verify(handle, "alice")).toEqual({ ok: true, claims })
    fc.assert(
      fc.property(fc.nat(handle.length - 1), fc.constantFrom(...ALPHABET), (index, char) => {
        fc.pre(handle[index] !== char)
        expect(handles.verify(mutate(handle, index, char), "alice").ok).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it("refuses another caller, another server's key and an expired handle", () => {
    let now = 1_000_000
    const handles = new TaskHandles(SECRET, { now: () => now })
    const other = new TaskHandles("another-secret-0123456789", { now: () => now })
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (caller, tool, ttl) => {
          now = 1_000_000
          const { handle } = handles.sign("alice", tool, now + ttl)
          if (caller !== "alice")
            expect(handles.verify(handle, caller)).toEqual({ ok: false, reason: "caller" })
          expect(other.verify(handle, "alice")).toEqual({ ok: false, reason: "signature" })
          expect(handles.verify(handle, "alice").ok).toBe(true)
          now += ttl
          expect(handles.verify(handle, "alice")).toEqual({ ok: false, reason: "expired" })
        },
      ),
      { numRuns: 200 },
    )
  })

  it("refuses what is not a handle at all", () => {
    const handles = new TaskHandles(SECRET)
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue()), (value) => {
        expect(handles.verify(value, "").ok).toBe(false)
      }),
      { numRuns: 300 },
    )
  })
})

/** A task waiting on one approval; `ran` counts the runs of its guarded side effect. */
const waitingTask = async (host: TaskHost, caller: string, tool: string) => {
  const states = new RequestStates(SECRET)
  const { round } = InputRound.open(states, { caller, method: `tools/call ${tool}`, arguments: {} }, {}, CAPS)
  const call = host.call(caller, tool, false, round, CAPS)
  const effects = { ran: 0 }
  const run = (async () => {
    const answer = (await call.client.elicitInput!({
      message: "Launch?",
      requestedSchema: { type: "object" },
    })) as {
      action?: string
    }
    if (answer.action === "accept") effects.ran++
    return { content: [{ type: "text", text: "launched" }] }
  })()
  const settled = await call.settle(
    run,
    (s) =>
      "value" in s ? { ok: true, result: s.value } : { ok: false, error: { code: -32603, message: "x" } },
    new AbortController().signal,
  )
  if (!("task" in settled)) throw new Error("expected a task")
  const taskId = settled.task.taskId as string
  const status = await host.serve("tasks/get", { taskId }, CAPS, caller)
  expect(status.status).toBe("input_required")
  return { taskId, effects, inputKey: Object.keys(status.inputRequests as object)[0]! }
}

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    return {
      code: (error as { code: number }).code,
      reason: (error as { data?: { reason?: string } }).data?.reason,
    }
  }
  return undefined
}

describe("TaskHost (a refused handle runs nothing)", () => {
  it("a changed byte, another caller or another server's handle neither answers nor cancels the task", async () => {
    const host = new TaskHost(SECRET, { immediateMs: 0 })
    const { taskId, effects, inputKey } = await waitingTask(host, "alice", "ops.launch")
    const accept = { [inputKey]: { action: "accept", content: {} } }
    await fc.assert(
      fc.asyncProperty(
        fc.nat(taskId.length - 1),
        fc.constantFrom(...ALPHABET),
        fc.constantFrom("tasks/update", "tasks/cancel", "tasks/get"),
        async (index, char, method) => {
          fc.pre(taskId[index] !== char)
          const forged = mutate(taskId, index, char)
          const params =
            method === "tasks/update" ? { taskId: forged, inputResponses: accept } : { taskId: forged }
          expect(await refusal(host.serve(method, params, CAPS, "alice"))).toMatchObject({ code: -32602 })
        },
      ),
      { numRuns: 300 },
    )
    for (const method of ["tasks/update", "tasks/cancel", "tasks/get"]) {
      const params = method === "tasks/update" ? { taskId, inputResponses: accept } : { taskId }
      expect(await refusal(host.serve(method, params, CAPS, "mallory"))).toEqual({
        code: -32602,
        reason: "caller",
      })
      const foreign = new TaskHost("another-secret-0123456789")
      expect(await refusal(foreign.serve(method, params, CAPS, "alice"))).toEqual({
        code: -32602,
        reason: "signature",
      })
    }
    const state = await host.serve("tasks/get", { taskId }, CAPS, "alice")
    expect(state.status).toBe("input_required")
    expect(effects.ran).toBe(0)
    // the genuine handle, for its caller, goes through
    await host.serve("tasks/update", { taskId, inputResponses: accept }, CAPS, "alice")
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(effects.ran).toBe(1)
    expect((await host.serve("tasks/get", { taskId }, CAPS, "alice")).status).toBe("completed")
  })

  it("a handle for another tool does not reach the task, and an expired one is refused", async () => {
    let now = Date.now()
    const host = new TaskHost(SECRET, { immediateMs: 0, ttlMs: 60_000, now: () => now })
    const { taskId, effects, inputKey } = await waitingTask(host, "alice", "ops.launch")
    // a validly signed handle naming the same task id for another tool does not reach the task
    const [, body] = /^tp1\.([^.]+)\./.exec(taskId)!
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString("utf8"))
    const key = createHmac("sha256", SECRET).update("toolplane task handle v1").digest()
    const otherBody = Buffer.from(JSON.stringify({ ...claims, t: "ops.other" })).toString("base64url")
    const tag = createHmac("sha256", key).update(otherBody).digest().toString("base64url")
    expect(
      await refusal(
        host.serve(
          "tasks/update",
          { taskId: `tp1.${otherBody}.${tag}`, inputResponses: { [inputKey]: { action: "accept" } } },
          CAPS,
          "alice",
        ),
      ),
    ).toEqual({ code: -32602, reason: "tool" })
    now += 60_000
    expect(
      await refusal(
        host.serve(
          "tasks/update",
          { taskId, inputResponses: { [inputKey]: { action: "accept" } } },
          CAPS,
          "alice",
        ),
      ),
    ).toEqual({ code: -32602, reason: "expired" })
    expect(effects.ran).toBe(0)
  })

  it("without the extension in the request's capabilities the task methods are -32021", async () => {
    const host = new TaskHost(SECRET)
    expect(await refusal(host.serve("tasks/get", { taskId: "x" }, { elicitation: {} }, ""))).toEqual({
      code: -32021,
      reason: undefined,
    })
  })

  it("a handle issued for another source reaches that source, with the signed reference", async () => {
    const host = new TaskHost(SECRET)
    const seen: (string | undefined)[] = []
    host.addSource({
      get: async (claims, handle) => {
        seen.push(claims.s)
        if (claims.s !== "upstream:42") return "unknown"
        const at = new Date().toISOString()
        return { taskId: handle, status: "working", createdAt: at, lastUpdatedAt: at, ttlMs: 1000 }
      },
      update: async () => "unknown",
      cancel: async () => "unknown",
    })
    const taskId = host.issue("alice", "docs.search", "upstream:42")
    expect(await host.serve("tasks/get", { taskId }, CAPS, "alice")).toMatchObject({
      resultType: "complete",
      taskId,
      status: "working",
    })
    expect(seen).toEqual(["upstream:42"])
    expect(await refusal(host.serve("tasks/get", { taskId }, CAPS, "bob"))).toEqual({
      code: -32602,
      reason: "caller",
    })
    const other = host.issue("alice", "docs.search", "upstream:43")
    expect(await refusal(host.serve("tasks/cancel", { taskId: other }, CAPS, "alice"))).toEqual({
      code: -32602,
      reason: "unknown",
    })
  })
})
