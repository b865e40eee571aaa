/**
 * The exported shapes against the `openai` package's own types. `pnpm --filter @toolplane/plugin-openai
 * typecheck` checks this file with tsc; vitest runs the runtime half.
 */
import type OpenAI from "openai"
import type {
  ChatCompletion,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions"
import type {
  FunctionTool,
  NamespaceTool,
  Response,
  ResponseFunctionCallOutputItem,
  ResponseInputItem,
  Tool as ResponsesTool,
  ToolSearchTool,
} from "openai/resources/responses/responses"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  type ChatCompletionsClient,
  type ChatToolMessage,
  type FunctionCallOutputItem,
  fromOpenAITool,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type ResponsesClient,
  type ResponsesOutputContent,
  runToolCalls,
  toChatCompletionsTools,
  toOpenAIToolSearch,
  toOpenAITools,
  toResponsesTools,
} from "../src/index.js"
import { allDefinitions, testService } from "./support.js"

describe("exported shapes match the openai package's types", () => {
  it("tool search sets are Responses tools (namespaces, tool_search); output content parts fit", () => {
    const tools: ResponsesTool[] = toOpenAIToolSearch(allDefinitions).tools
    expect(tools[0]).toEqual({ type: "tool_search" })
    expectTypeOf<ReturnType<typeof toOpenAIToolSearch>["tools"][number]>().toExtend<
      NamespaceTool | ToolSearchTool
    >()
    expectTypeOf<ResponsesOutputContent>().toExtend<ResponseFunctionCallOutputItem>()
  })

  it("chat tools are ChatCompletionTool[] and responses tools are FunctionTool[]", () => {
    const chat: ChatCompletionTool[] = toChatCompletionsTools(allDefinitions).tools
    const chatFns: ChatCompletionFunctionTool[] = toOpenAITools(allDefinitions, {
      strict: true,
      api: "chat",
    }).tools
    const responses: FunctionTool[] = toResponsesTools(allDefinitions).tools
    const responsesTools: ResponsesTool[] = toOpenAITools(allDefinitions, {
      strict: true,
      api: "responses",
    }).tools
    expectTypeOf<OpenAIChatTool>().toExtend<ChatCompletionFunctionTool>()
    expectTypeOf<OpenAIResponsesTool>().toExtend<FunctionTool>()
    expect(chat.length + chatFns.length + responses.length + responsesTools.length).toBe(16)
  })

  it("outputs are valid message params and input items, and the client fits the loop", async () => {
    expectTypeOf<ChatToolMessage>().toExtend<ChatCompletionToolMessageParam>()
    expectTypeOf<ChatToolMessage>().toExtend<ChatCompletionMessageParam>()
    expectTypeOf<FunctionCallOutputItem>().toExtend<ResponseInputItem.FunctionCallOutput>()
    expectTypeOf<FunctionCallOutputItem>().toExtend<ResponseInputItem>()
    expectTypeOf<OpenAI>().toExtend<ChatCompletionsClient>()
    expectTypeOf<OpenAI>().toExtend<ResponsesClient>()
    // the overloads pick the right output type from the response type
    expectTypeOf(runToolCalls(testService(), {} as ChatCompletion)).resolves.toEqualTypeOf<
      ChatToolMessage[]
    >()
    expectTypeOf(
      runToolCalls(testService(), {} as ChatCompletion["choices"][number]["message"]),
    ).resolves.toEqualTypeOf<ChatToolMessage[]>()
    expectTypeOf(runToolCalls(testService(), {} as Response)).resolves.toEqualTypeOf<
      FunctionCallOutputItem[]
    >()
    expectTypeOf(runToolCalls(testService(), [] as Response["output"])).resolves.toEqualTypeOf<
      FunctionCallOutputItem[]
    >()
    const messages: ChatCompletionMessageParam[] = await runToolCalls(testService(), {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "math__add", arguments: '{"a":1,"b":2}' } },
      ],
    })
    const items: ResponseInputItem[] = await runToolCalls(testService(), [
      { type: "function_call", call_id: "c1", name: "math__add", arguments: '{"a":1,"b":2}' },
    ])
    expect(messages).toEqual([{ role: "tool", tool_call_id: "c1", content: "3" }])
    expect(items).toEqual([{ type: "function_call_output", call_id: "c1", output: "3" }])
  })

  it("imports the openai package's tool shapes", () => {
    const chatTool = {
      type: "function",
      function: { name: "lookup", parameters: { type: "object", properties: {} }, strict: true },
    } satisfies ChatCompletionTool
    const fnTool = {
      type: "function",
      name: "lookup",
      parameters: { type: "object", properties: {} },
      strict: null,
    } satisfies FunctionTool
    expect(fromOpenAITool(chatTool).id).toBe("openai/lookup")
    expect(fromOpenAITool(fnTool, { namespace: "legacy" }).id).toBe("legacy/lookup")
  })
})
