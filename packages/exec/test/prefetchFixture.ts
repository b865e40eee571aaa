/**
 * The shared fixture of the prefetch tests: a small stateful key-value service whose tools cover every
 * safety rule (read-only, approval, rate limit, idempotent write), declared links to all of them, and a
 * runner over it.
 */
import { defineEnricher, defineTool, type Enricher, isToolError } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { z } from "zod"
import { canonicalJson, createRunner, type PrefetchOptions, type ToolRunner } from "../src/index.js"
import { tick } from "./helpers.js"

/**
 * A small stateful key-value service. Every backend execution is recorded with its caller; the state is
 * what a caller can observe through the tools.
 */
export const kvService = (options: { readonly delayMs?: number } = {}) => {
  const state = new Map<string, string>([
    ["a", "1"],
    ["b", "2"],
  ])
  const executions: { tool: string; args: unknown; caller: string | undefined }[] = []
  const delay = () => (options.delayMs ? tick(options.delayMs) : Promise.resolve())
  const record = (tool: string, args: unknown, caller: string | undefined) =>
    executions.push({ tool, args, caller })
  const defs = [
    defineTool({
      id: "kv/get",
      input: z.object({ key: z.string().min(1) }),
      annotations: { readOnlyHint: true },
      handler: async ({ key }, ctx) => {
        record("kv/get", { key }, ctx.callerId)
        await delay()
        return { key, value: state.get(key) ?? null }
      },
    }),
    defineTool({
      id: "kv/list",
      input: z.object({}),
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => {
        record("kv/list", {}, ctx.callerId)
        await delay()
        return { keys: [...state.keys()].sort() }
      },
    }),
    defineTool({
      id: "kv/put",
      input: z.object({ key: z.string().min(1), value: z.string() }),
      handler: async ({ key, value }, ctx) => {
        record("kv/put", { key, value }, ctx.callerId)
        await delay()
        state.set(key, value)
        return { key, written: true }
      },
    }),
    // Read-only but requires approval.
    defineTool({
      id: "kv/secret",
      input: z.object({ key: z.string() }),
      annotations: { readOnlyHint: true },
      handler: async ({ key }, ctx) => {
        record("kv/secret", { key }, ctx.callerId)
        return { key, secret: `s-${state.get(key) ?? ""}` }
      },
    }),
    // Read-only but rate limited (3 calls in the whole test, refusing beyond).
    defineTool({
      id: "kv/limited",
      input: z.object({ key: z.string() }),
      annotations: { readOnlyHint: true },
      handler: async ({ key }, ctx) => {
        record("kv/limited", { key }, ctx.callerId)
        return { key, value: state.get(key) ?? null }
      },
    }),
    // Idempotent but not read-only: it writes.
    defineTool({
      id: "kv/touch",
      input: z.object({ key: z.string() }),
      annotations: { idempotentHint: true },
      handler: async ({ key }, ctx) => {
        record("kv/touch", { key }, ctx.callerId)
        state.set(key, state.get(key) ?? "")
        return { key, touched: true }
      },
    }),
  ]
  return { state, executions, defs }
}

/** Links from every tool to every read-only-looking follow-up, including the ones prefetch must refuse. */
export const linkAll: Enricher = defineEnricher({
  name: "kv-links",
  categories: [],
  valueModel: (toolId) =>
    toolId === "kv/list"
      ? {
          followUps: [
            { toolId: "kv/get", projection: "/keys", projectionArg: "key" },
            { toolId: "kv/secret", projection: "/keys", projectionArg: "key" },
            { toolId: "kv/limited", projection: "/keys", projectionArg: "key" },
            { toolId: "kv/touch", projection: "/keys", projectionArg: "key" },
          ],
        }
      : toolId === "kv/put"
        ? { followUps: [{ toolId: "kv/get", projection: "/key", projectionArg: "key" }] }
        : undefined,
})

export const makeRunner = (prefetch: PrefetchOptions | undefined, service = kvService()) => {
  const runner = createRunner({
    backends: [definitionBackend(service.defs, { approval: (id) => id === "kv/secret" })],
    enrichers: [linkAll],
    approver: { approve: async () => true },
    limits: { tools: { "kv/limited": { rateLimit: { ratePerSecond: 0.0001, burst: 3, mode: "reject" } } } },
    retry: false,
    ...(prefetch === undefined ? {} : { prefetch }),
  })
  return { runner, service }
}

export const outcome = async (p: Promise<unknown>): Promise<string> => {
  try {
    return canonicalJson(await p)
  } catch (error) {
    return `error:${isToolError(error) ? error._tag : String(error)}`
  }
}

/** Lets prefetches planned after the last call start and finish. */
export const settle = async (runner: ToolRunner) => {
  for (let i = 0; i < 50 && (runner.prefetch?.stats().inFlight ?? 0) > 0; i++) await tick(1)
  await tick(1)
}
