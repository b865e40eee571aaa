/** Test tools: a runner (the real exec pipeline) over an in-process backend. */
import { type Approver, createRunner } from "@toolplane/exec"
import { defineTool, image, text } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { z } from "zod"

/** Calls of the two sleeping tools in flight at once. */
export const inflight = { now: 0, max: 0 }
const sleep = async (ms: number) => {
  inflight.now++
  inflight.max = Math.max(inflight.max, inflight.now)
  await new Promise((r) => setTimeout(r, ms))
  inflight.now--
}

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

export const explode = defineTool({
  id: "ops/explode",
  description: "Always fails",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => {
    throw new Error("the reactor is offline")
  },
})

export const deploy = defineTool({
  id: "ops/deploy",
  description: "Deploys to an environment",
  input: z.object({ env: z.string() }),
  handler: ({ env }) => `deployed to ${env}`,
})

export const screenshot = defineTool({
  id: "screen/shot",
  description: "Takes a screenshot",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => ({
    content: [text("the screen"), image(Buffer.from("png").toString("base64"), "image/png")],
  }),
})

/** A slow tool that reports whether its signal was aborted. */
export const aborted: { value: boolean | undefined } = { value: undefined }
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

export const makeRunner = (approver?: Approver) =>
  createRunner({
    backends: [localBackend([weather, add, explode, deploy, screenshot, slow], { name: "local" })],
    ...(approver !== undefined ? { approver } : {}),
  })
