/**
 * The exported shapes against the `@anthropic-ai/sdk` package's own types. `pnpm --filter
 * @toolplane/plugin-anthropic typecheck` checks this file with tsc; vitest runs the runtime half.
 */
import type Anthropic from "@anthropic-ai/sdk"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  type AnthropicTool,
  type AnthropicToolSearchTool,
  fromAnthropicTool,
  type MessagesClient,
  runToolCalls,
  type ToolResultBlock,
  toAnthropicToolSearch,
  toAnthropicTools,
} from "../src/index.js"
import { allDefinitions, testService } from "./support.js"

describe("exported shapes match the @anthropic-ai/sdk types", () => {
  it("tools are Anthropic.Messages.Tool[]; a tool-search set is ToolUnion[]", () => {
    const tools: Anthropic.Messages.Tool[] = toAnthropicTools(allDefinitions).tools
    const strict: Anthropic.Messages.Tool[] = toAnthropicTools(allDefinitions, { strict: true }).tools
    const search: Anthropic.Messages.ToolUnion[] = toAnthropicToolSearch(allDefinitions, {
      variant: "regex",
    }).tools
    const bm25: Anthropic.Messages.ToolSearchToolBm25_20251119 = toAnthropicToolSearch(allDefinitions)
      .searchTool as Extract<AnthropicToolSearchTool, { name: "tool_search_tool_bm25" }>
    expectTypeOf<AnthropicTool>().toExtend<Anthropic.Messages.Tool>()
    expectTypeOf<AnthropicToolSearchTool>().toExtend<Anthropic.Messages.ToolUnion>()
    expect(tools.length + strict.length + search.length).toBe(16)
    expect(bm25.type).toBe("tool_search_tool_bm25_20251119")
  })

  it("tool results are ToolResultBlockParam[], the content of a user MessageParam; the client fits the loop", async () => {
    expectTypeOf<ToolResultBlock>().toExtend<Anthropic.Messages.ToolResultBlockParam>()
    expectTypeOf<Anthropic>().toExtend<MessagesClient>()
    const response = {} as Anthropic.Messages.Message
    expectTypeOf(runToolCalls(testService().service, response)).resolves.toEqualTypeOf<ToolResultBlock[]>()
    const blocks: Anthropic.Messages.ToolResultBlockParam[] = await runToolCalls(testService().service, [
      { type: "tool_use", id: "toolu_1", name: "math__add", input: { a: 1, b: 2 } },
    ])
    const next: Anthropic.Messages.MessageParam = { role: "user", content: blocks }
    expect(next.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "3" }] },
    ])
  })

  it("imports the SDK's tool shape", () => {
    const tool = {
      name: "lookup",
      description: "Looks up",
      input_schema: { type: "object", properties: { q: { type: "string" } } },
      strict: true,
    } satisfies Anthropic.Messages.Tool
    const imported = fromAnthropicTool(tool)
    expect(imported.id).toBe("anthropic/lookup")
    expect(imported.metadata).toEqual({ anthropic: { name: "lookup", strict: true } })
  })
})
