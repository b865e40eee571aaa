/**
 * An upstream that waits on several input requests at once has them asked of the caller together (not one
 * after another): a gateway serving a modern client then shows all of them in one `input_required`. The
 * upstream is a Toolplane `serveHttp` whose task-supporting tool asks two questions at once; the caller is
 * an `mcpBackend` (2026-07-28, declaring the tasks extension) that follows the task.
 */
import { createRunner } from "@toolplane/exec"
import { defineTool, makeContext } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, type McpHttpServerHandle, mcpBackend, serveHttp } from "../src/index.js"

const twoQuestions = defineTool({
  id: "ask/two",
  input: { type: "object", properties: {} },
  metadata: { mcp: { execution: { taskSupport: "optional" } } },
  handler: async (_args: Record<string, unknown>, ctx) => {
    const ask = (message: string) =>
      ctx.client.elicitInput!({
        mode: "form",
        message,
        requestedSchema: { type: "object", properties: { v: { type: "string" } } },
      } as never) as Promise<{ content?: { v?: string } }>
    const [a, b] = await Promise.all([ask("first?"), ask("second?")])
    return { text: `${a.content?.v} ${b.content?.v}` }
  },
})

let upstream: McpHttpServerHandle
let backend: McpBackend

beforeAll(async () => {
  const runner = createRunner({ backends: [definitionBackend([twoQuestions], { name: "ask" })] })
  upstream = await serveHttp(runner)
  backend = mcpBackend(
    { name: "up", http: { url: upstream.url } },
    { requiresApproval: false, reconnect: false, protocol: "2026-07-28" },
  )
  await backend.connect()
}, 20_000)

afterAll(async () => {
  await backend?.close()
  await upstream?.close()
})

describe("an upstream's several input requests", () => {
  it("are asked of the caller together", async () => {
    const asked: string[] = []
    let open = 0
    let most = 0
    const result = await backend.execute(
      { toolId: "up/ask.two", arguments: {} },
      makeContext({
        client: {
          elicitInput: async (request) => {
            asked.push(String(request.message))
            most = Math.max(most, ++open)
            // answered only once every question was asked (or after a while, for the old behaviour)
            const deadline = Date.now() + 1_000
            while (asked.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
            open--
            return { action: "accept", content: { v: String(request.message).replace("?", "") } }
          },
        },
      }),
    )
    expect(asked.sort()).toEqual(["first?", "second?"])
    expect(most).toBe(2)
    expect(JSON.stringify(result.content)).toContain("first second")
  })
})
