import { defineTool, ExecutionFailed, InvalidArguments, RateLimited, Timeout } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner } from "../src/index.js"
import { backoffMs, retryPolicyFor } from "../src/pipeline/retry.js"

const flaky = (
  id: string,
  failures: number,
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean },
) => {
  const state = { calls: 0 }
  const def = defineTool({
    id,
    ...(annotations ? { annotations } : {}),
    input: z.object({}).passthrough(),
    handler: () => {
      state.calls++
      if (state.calls <= failures) throw new Error(`failure ${state.calls}`)
      return `ok after ${state.calls}`
    },
  })
  return { def, state }
}

const fast = { baseDelayMs: 1, maxDelayMs: 4 }

describe("retry", () => {
  it("retries idempotent and read-only tools and counts attempts exactly", async () => {
    const idem = flaky("r/idem", 2, { idempotentHint: true })
    const ro = flaky("r/ro", 1, { readOnlyHint: true })
    const runner = createRunner({
      backends: [definitionBackend([idem.def, ro.def])],
      retry: { ...fast, maxAttempts: 3 },
    })
    const result = await runner.callTool({ name: "r/idem" })
    expect(result.content).toEqual([{ type: "text", text: "ok after 3" }])
    expect(idem.state.calls).toBe(3)
    await runner.callTool({ name: "r/ro" })
    expect(ro.state.calls).toBe(2)
  })

  it("gives up after maxAttempts with the last failure", async () => {
    const idem = flaky("r/always", 100, { idempotentHint: true })
    const runner = createRunner({
      backends: [definitionBackend([idem.def])],
      retry: { ...fast, maxAttempts: 4 },
    })
    const error = await runner.callTool({ name: "r/always" }).catch((e) => e)
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect(error.cause.message).toBe("failure 4")
    expect(idem.state.calls).toBe(4)
  })

  it("never retries a tool that is not idempotent", async () => {
    const write = flaky("r/write", 1)
    const runner = createRunner({ backends: [definitionBackend([write.def])], retry: fast })
    await expect(runner.callTool({ name: "r/write" })).rejects.toBeInstanceOf(ExecutionFailed)
    expect(write.state.calls).toBe(1)
  })

  it("retries tools configured explicitly, and not those switched off", async () => {
    const write = flaky("r/write2", 1)
    const ro = flaky("r/ro2", 1, { readOnlyHint: true })
    const runner = createRunner({
      backends: [definitionBackend([write.def, ro.def])],
      retry: { ...fast, tools: { "r/write2": true, "r/ro2": false } },
    })
    await runner.callTool({ name: "r/write2" })
    expect(write.state.calls).toBe(2)
    await expect(runner.callTool({ name: "r/ro2" })).rejects.toBeInstanceOf(ExecutionFailed)
    expect(ro.state.calls).toBe(1)
  })

  it("does not retry non-transient failures", async () => {
    let calls = 0
    const limited = defineTool({
      id: "r/typed",
      annotations: { readOnlyHint: true },
      input: z.object({ n: z.number() }),
      handler: () => {
        calls++
        throw new Timeout({ toolId: "r/typed", timeoutMs: 1 })
      },
    })
    const runner = createRunner({ backends: [definitionBackend([limited])], retry: fast })
    await expect(runner.callTool({ name: "r/typed", arguments: { n: "x" } })).rejects.toBeInstanceOf(
      InvalidArguments,
    )
    expect(calls).toBe(0)
    await expect(runner.callTool({ name: "r/typed", arguments: { n: 1 } })).rejects.toBeInstanceOf(Timeout)
    expect(calls).toBe(1)
  })

  it("retries RateLimited raised by a backend, and disables with retry: false", async () => {
    let calls = 0
    const busy = defineTool({
      id: "r/busy",
      annotations: { readOnlyHint: true },
      handler: () => {
        calls++
        if (calls === 1) throw new RateLimited({ key: "upstream" })
        return "ok"
      },
    })
    const runner = createRunner({ backends: [definitionBackend([busy])], retry: fast })
    await runner.callTool({ name: "r/busy" })
    expect(calls).toBe(2)
    calls = 0
    const off = createRunner({ backends: [definitionBackend([busy])], retry: false })
    await expect(off.callTool({ name: "r/busy" })).rejects.toBeInstanceOf(RateLimited)
    expect(calls).toBe(1)
  })

  it("backs off exponentially with bounded jitter", () => {
    const tool = flaky("r/x", 0, { idempotentHint: true }).def
    const policy = retryPolicyFor(tool, { baseDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 })!
    expect(policy.maxAttempts).toBe(3)
    expect(backoffMs(policy, 1, () => 0)).toBe(100)
    expect(backoffMs(policy, 2, () => 0)).toBe(200)
    expect(backoffMs(policy, 3, () => 0.999999)).toBeCloseTo(200, 0)
    expect(backoffMs(policy, 10, () => 0)).toBe(1000)
    expect(retryPolicyFor(flaky("r/y", 0).def, {})).toBeUndefined()
  })
})
