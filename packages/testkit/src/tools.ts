/**
 * Test tools (a weather lookup, an adder, a failing tool, a deploy that needs approval, a screenshot, a
 * slow abortable tool) and a runner (the real exec pipeline) over them. Read-only tools need no approval;
 * the others do.
 */
import { type Approver, createRunner, type ToolRunner } from "@toolplane/exec"
import { defineBackend, defineTool, image, type Tool, type ToolDefinition, text } from "@toolplane/foundation"
import { z } from "zod"
import type { ScriptedCall } from "./chatServer.js"

/**
 * Calls of the two sleeping tools (weather, add) in flight at once.
 *
 * @since 0.1.0
 */
export const inflight = { now: 0, max: 0 }
const sleep = async (ms: number) => {
  inflight.now++
  inflight.max = Math.max(inflight.max, inflight.now)
  await new Promise((r) => setTimeout(r, ms))
  inflight.now--
}

/** @since 0.1.0 */
export const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).optional() }),
  annotations: { readOnlyHint: true },
  handler: async ({ city, units }) => {
    await sleep(30)
    return { city, units: units ?? "c", temp: city === "Oslo" ? 4 : 21 }
  },
})

/** @since 0.1.0 */
export const add = defineTool({
  id: "math/add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  annotations: { readOnlyHint: true },
  handler: async ({ a, b }) => {
    await sleep(30)
    return String(a + b)
  },
})

/** @since 0.1.0 */
export const explode = defineTool({
  id: "ops/explode",
  description: "Always fails",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => {
    throw new Error("the reactor is offline")
  },
})

/** @since 0.1.0 */
export const deploy = defineTool({
  id: "ops/deploy",
  description: "Deploys to an environment",
  input: z.object({ env: z.string() }),
  handler: ({ env }) => `deployed to ${env}`,
})

/** @since 0.1.0 */
export const screenshot = defineTool({
  id: "screen/shot",
  description: "Takes a screenshot",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => ({
    content: [text("the screen"), image(Buffer.from("png").toString("base64"), "image/png")],
  }),
})

/**
 * Set to `true` when the slow tool saw its signal abort.
 *
 * @since 0.1.0
 */
export const aborted: { value: boolean | undefined } = { value: undefined }

/** @since 0.1.0 */
export const slow = defineTool({
  id: "ops/slow",
  description: "Takes a while",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000)
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer)
        aborted.value = true
        resolve()
      })
    })
    return "finished"
  },
})

const definitions: readonly ToolDefinition<any>[] = [weather, add, explode, deploy, screenshot, slow]

/**
 * A runner over the test tools, with an optional approver.
 *
 * @since 0.1.0
 */
export const makeRunner = (approver?: Approver): ToolRunner => {
  const byId = new Map(definitions.map((d) => [d.id, d]))
  const tools: Tool[] = definitions.map(
    ({ handler: _h, inputValidator: _i, outputValidator: _o, ...tool }) => tool,
  )
  return createRunner({
    backends: [
      defineBackend({
        name: "local",
        toolSchemas: () => tools,
        execute: (call, ctx) => byId.get(call.toolId)!.invoke(call.arguments, ctx),
        requiresApproval: (id) => byId.get(id)?.annotations?.readOnlyHint !== true,
      }),
    ],
    ...(approver !== undefined ? { approver } : {}),
  })
}

/**
 * One model turn of calls to {@link makeRunner}'s tools with every outcome an export must handle: two
 * calls that succeed (in parallel), an unknown tool, bad arguments, a failing tool and invalid JSON
 * (ids `c1` to `c6`, tool names as `mapToolNames` makes them).
 *
 * @since 0.1.0
 */
export const LOOP_CALLS: readonly ScriptedCall[] = [
  ["c1", "weather__current", '{"city":"Oslo"}'],
  ["c2", "math__add", '{"a":2,"b":3}'],
  ["c3", "nope__tool", "{}"],
  ["c4", "weather__current", '{"city":"X"}'],
  ["c5", "ops__explode", "{}"],
  ["c6", "math__add", '{"a": 2,'],
]
