/**
 * Speculative prefetch wherever a runner is: `runToolCalls` (the OpenAI tool-call loop takes any
 * ToolService), the compose gateway stack over a runner, and skills executed over a runner. A provider's
 * follow-up link (search -> fetch of the id found) makes the runner fetch before the model asks.
 */
import { executePlan, gatewayStack, makePlanner } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineEnricher, defineTool, type ToolService } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { runAgentLoop, runToolCalls } from "../src/index.js"

const setup = () => {
  const executions = { search: 0, fetch: 0 }
  const search = defineTool({
    id: "docs/search",
    input: z.object({ topic: z.string() }),
    annotations: { readOnlyHint: true },
    handler: ({ topic }) => {
      executions.search++
      return { id: `doc-${topic}` }
    },
  })
  const fetch = defineTool({
    id: "docs/fetch",
    input: z.object({ id: z.string() }),
    annotations: { readOnlyHint: true },
    handler: async ({ id }) => {
      executions.fetch++
      await new Promise((r) => setTimeout(r, 5))
      return `contents of ${id}`
    },
  })
  const backend = definitionBackend([search, fetch], { name: "docs", kind: "custom" })
  const links = defineEnricher({
    name: "docs-links",
    categories: [],
    valueModel: (id) =>
      id === "docs/search"
        ? { followUps: [{ toolId: "docs/fetch", projection: "/id", projectionArg: "id" }] }
        : undefined,
  })
  const runner = createRunner({ backends: [backend], enrichers: [links], prefetch: { learning: false } })
  return { runner, executions }
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms))
const context = { callerId: "agent-7" }

const chat = (name: string, args: object) => ({
  role: "assistant" as const,
  tool_calls: [
    { id: `call-${name}`, type: "function" as const, function: { name, arguments: JSON.stringify(args) } },
  ],
})

describe("prefetch through the OpenAI tool-call loop, the gateway stack and skills", () => {
  it("runToolCalls: the model's fetch after a search is served from the prefetch", async () => {
    const { runner, executions } = setup()
    const [found] = await runToolCalls(runner, chat("docs__search", { topic: "otters" }), { context })
    expect(found!.content).toContain("doc-otters")
    await tick(20) // the model thinks; the runner fetches meanwhile
    expect(executions.fetch).toBe(1)
    const [doc] = await runToolCalls(runner, chat("docs__fetch", { id: "doc-otters" }), { context })
    expect(doc!.content).toBe("contents of doc-otters")
    expect(executions.fetch).toBe(1)
    expect(runner.prefetch!.stats()).toMatchObject({ issued: 1, hits: 1 })
  })

  it("gatewayStack over a runner with prefetch: hits keep the caller through the stack", async () => {
    const { runner, executions } = setup()
    const stack: ToolService = await gatewayStack(runner, {})
    await stack.callTool({ name: "docs/search", arguments: { topic: "seals" }, context })
    await tick(20)
    const doc = await stack.callTool({ name: "docs/fetch", arguments: { id: "doc-seals" }, context })
    expect(doc.content[0]).toMatchObject({ text: "contents of doc-seals" })
    expect(executions.fetch).toBe(1)
    expect(runner.prefetch!.stats().hits).toBe(1)
    // Another caller asking the same thing is not served the first caller's prefetch.
    await stack.callTool({
      name: "docs/fetch",
      arguments: { id: "doc-seals" },
      context: { callerId: "other" },
    })
    expect(executions.fetch).toBe(2)
  })

  it("a skill's search -> fetch steps run over the runner; the fetch step takes the prefetch", async () => {
    const { runner, executions } = setup()
    const plan = makePlanner({ tools: ["docs/search", "docs/fetch"] }).plan({
      name: "read_about",
      steps: [
        { id: "find", tool: "docs/search", inputs: { topic: "whales" } },
        { id: "read", tool: "docs/fetch", inputs: { id: { $ref: "find#/id" } } },
      ],
    })
    const run = await executePlan(plan, runner, { context })
    expect(run.ok).toBe(true)
    expect(executions).toEqual({ search: 1, fetch: 1 })
    expect(runner.prefetch!.stats()).toMatchObject({ issued: 1, hits: 1 })
  })

  it("runAgentLoop hands the user's message to the runner's prefetcher before the model answers", async () => {
    const { runner, executions } = setup()
    // A scripted model (hosted APIs cannot run here): it takes 30 ms to think, then searches the quoted
    // topic, then answers.
    const topicOf = (body: { messages: { role: string; content: string }[] }) =>
      /'([^']+)'/.exec(body.messages[0]!.content)![1]!
    const client = {
      chat: {
        completions: {
          async create(body: { messages: { role: string; content: string }[] }) {
            await tick(30)
            const message =
              body.messages.length === 1
                ? chat("docs__search", { topic: topicOf(body) })
                : { role: "assistant" as const, content: "done" }
            return { choices: [{ message }] }
          },
        },
      },
    }
    const ask = (topic: string) =>
      runAgentLoop({
        client,
        service: runner,
        model: "scripted",
        context,
        messages: [{ role: "user", content: `Find the page about '${topic}' for me` }],
      })
    await ask("otters")
    expect(executions.search).toBe(1)
    // The first turn taught the runner what follows such a message; the second one's search starts while
    // the model thinks and is served to it.
    const loop = ask("beavers")
    await tick(15)
    expect(executions.search).toBe(2)
    expect((await loop).text).toBe("done")
    expect(executions.search).toBe(2)
    expect(runner.prefetch!.stats().hits).toBeGreaterThanOrEqual(1)
  })
})
