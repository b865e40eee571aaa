/**
 * The real AI SDK (`ai` generateText + `@ai-sdk/openai`) against a local OpenAI-compatible server with
 * scripted tool calls, executing through the real runner (validation, approval gate) over an in-process
 * backend.
 */
import { approveAll } from "@toolplane/exec"
import {
  aborted,
  echoViolations,
  inflight,
  LOOP_CALLS,
  makeRunner,
  offeredTools,
  ownKeysAt,
  PROTOTYPE_KEYS,
  prototypeKeyArguments,
  prototypeKeyService,
  scriptCalls,
  toolMessages,
} from "@toolplane/testkit"
import { generateText, type ModelMessage, stepCountIs } from "ai"
import { describe, expect, it } from "vitest"
import { aiSdkApproval, toAISDKTools } from "../src/index.js"
import { chatModel as model, responsesModel, server } from "./support.js"

describe("generateText with Toolplane tools", () => {
  it("a full loop: parallel calls, an unknown tool, bad arguments, invalid JSON and a failing tool", async () => {
    const runner = makeRunner(approveAll())
    const { tools, names } = await toAISDKTools(runner)
    expect(Object.keys(tools).sort()).toEqual([
      "math__add",
      "ops__deploy",
      "ops__explode",
      "ops__slow",
      "screen__shot",
      "weather__current",
    ])
    expect(names.idOf("weather__current")).toBe("weather/current")
    const calls = [...LOOP_CALLS, ["c7", "screen__shot", "{}"] as const]
    const start = scriptCalls(server, calls, "Oslo is 4 degrees; 2+3=5.")
    inflight.max = 0
    const result = await generateText({ model: model(), tools, prompt: "go", stopWhen: stepCountIs(4) })
    expect(result.text).toBe("Oslo is 4 degrees; 2+3=5.")
    expect(result.steps).toHaveLength(2)
    // the first request offered every tool with its JSON Schema
    const offered = server.requests[start].tools.map((t: any) => t.function.name).sort()
    expect(offered).toContain("weather__current")
    const weatherTool = server.requests[start].tools.find((t: any) => t.function.name === "weather__current")
    expect(weatherTool.function.parameters.properties.city).toEqual({ type: "string", minLength: 2 })
    // what went back to the model
    const out = toolMessages(server.requests[start + 1])
    expect(out.c1).toContain('"temp":4')
    expect(out.c2).toContain("5")
    expect(out.c3).toContain("unavailable tool 'nope__tool'")
    expect(out.c3).toContain("weather__current")
    expect(out.c4).toContain("Error: [INVALID_ARGUMENTS] calling")
    expect(out.c4).toContain("at /city")
    expect(out.c4).toContain("Correct the arguments")
    expect(out.c5).toContain("[EXECUTION_FAILED]")
    expect(out.c5).toContain("the reactor is offline")
    expect(out.c6).toContain("JSON parsing failed")
    // images go out as file content parts with their media type, not placeholders
    expect(JSON.parse(out.c7!)).toEqual([
      { type: "text", text: "the screen" },
      {
        type: "file",
        mediaType: "image/png",
        data: { type: "data", data: Buffer.from("png").toString("base64") },
      },
    ])
    // the calls of one step ran in parallel
    expect(inflight.max).toBeGreaterThanOrEqual(2)
  })

  it("prototype keys: properties named __proto__ or constructor go out; the SDK refuses a __proto__ argument", async () => {
    const { service, calls } = prototypeKeyService()
    const { tools } = await toAISDKTools(service)
    const withProto = JSON.stringify(prototypeKeyArguments())
    const without =
      '{"constructor":"constructor","prototype":"prototype","hasOwnProperty":"x","nested":{"constructor":2}}'
    const start = scriptCalls(
      server,
      [
        ["p1", "keys__echo", without],
        ["p2", "keys__echo", withProto],
      ],
      "echoed",
    )
    await generateText({ model: model(), tools, prompt: "go", stopWhen: stepCountIs(3) })
    const [offered] = offeredTools(server.requests[start])
    expect(ownKeysAt(offered, "parameters", "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    // inherited names arrive as data
    expect(echoViolations(calls, without)).toEqual([])
    const out = toolMessages(server.requests[start + 1])
    expect(out.p1).toBe(without)
    // the AI SDK parses tool input with secure-json-parse, which refuses a __proto__ key: the tool never
    // runs and the model reads why
    expect(out.p2).toContain("forbidden prototype property")
  })

  it("through the Responses API provider, images go back as input_image content", async () => {
    const runner = makeRunner(approveAll())
    const { tools } = await toAISDKTools(runner)
    const start = scriptCalls(
      server,
      [
        ["r1", "screen__shot", "{}"],
        ["r2", "math__add", '{"a":1,"b":1}'],
      ],
      "seen",
    )
    const result = await generateText({
      model: responsesModel(),
      tools,
      prompt: "look",
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe("seen")
    const outputs = Object.fromEntries(
      (server.requests[start + 1].input as any[])
        .filter((item) => item.type === "function_call_output")
        .map((item) => [item.call_id, item.output]),
    )
    expect(outputs.r2).toBe("2")
    expect(outputs.r1).toEqual([
      { type: "input_text", text: "the screen" },
      { type: "input_image", image_url: `data:image/png;base64,${Buffer.from("png").toString("base64")}` },
    ])
  })

  it("the SDK's abort signal reaches the tool", async () => {
    const runner = makeRunner(approveAll())
    const { tools } = await toAISDKTools(runner)
    scriptCalls(server, [["s1", "ops__slow", "{}"]], "never")
    const controller = new AbortController()
    aborted.value = undefined
    setTimeout(() => controller.abort(), 150)
    const t0 = performance.now()
    // the SDK may reject or end the step; either way the tool must have seen the abort, long before 5 s
    await generateText({ model: model(), tools, prompt: "go", abortSignal: controller.signal }).catch(
      () => undefined,
    )
    expect(aborted.value).toBe(true)
    expect(performance.now() - t0).toBeLessThan(3_000)
  })

  it("tools that need approval ask through the SDK's approval flow; the runner's gate accepts only those", async () => {
    const approval = aiSdkApproval({ needsApproval: (tool) => tool.annotations?.readOnlyHint !== true })
    const runner = makeRunner(approval.approver as never)
    const { tools, toolApproval } = await toAISDKTools(runner, { approval })
    expect(toolApproval.ops__deploy).toMatchObject({ type: "user-approval" })
    expect(toolApproval.math__add).toEqual({ type: "not-applicable" })
    const start = scriptCalls(server, [["d1", "ops__deploy", '{"env":"prod"}']], "deployed")
    const first = await generateText({
      model: model(),
      tools,
      toolApproval,
      prompt: "deploy",
      stopWhen: stepCountIs(4),
    })
    const request = first.content.find((p) => p.type === "tool-approval-request")
    expect(request).toBeDefined()
    expect(server.requests.length).toBe(start + 1) // stopped for approval, nothing ran
    const messages: ModelMessage[] = [
      { role: "user", content: "deploy" },
      ...first.response.messages,
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: (request as any).approvalId, approved: true },
        ],
      },
    ]
    const second = await generateText({
      model: model(),
      tools,
      toolApproval,
      messages,
      stopWhen: stepCountIs(4),
    })
    expect(second.text).toBe("deployed")
    expect(toolMessages(server.requests.at(-1))).toEqual({ d1: "deployed to prod" })
    // the same tool called outside the SDK's approval flow is refused by the runner's gate
    await expect(runner.callTool({ name: "ops/deploy", arguments: { env: "prod" } })).rejects.toMatchObject({
      _tag: "ApprovalDenied",
    })
    // a forged proof is refused too
    await expect(
      runner.callTool({
        name: "ops/deploy",
        arguments: { env: "prod" },
        context: { metadata: { "toolplane.dev/ai-sdk-approval": { token: "forged", via: "user" } } },
      }),
    ).rejects.toMatchObject({ _tag: "ApprovalDenied" })
  })

  it("a denied approval never runs the tool and the model reads the denial", async () => {
    const approval = aiSdkApproval()
    let ran = 0
    const runner = makeRunner(approval.approver as never)
    const service = {
      listTools: runner.listTools.bind(runner),
      callTool: (r: Parameters<typeof runner.callTool>[0]) => {
        ran++
        return runner.callTool(r)
      },
    }
    const { tools, toolApproval } = await toAISDKTools(service, { approval })
    scriptCalls(server, [["d2", "ops__deploy", '{"env":"prod"}']], "ok, not deployed")
    const first = await generateText({ model: model(), tools, toolApproval, prompt: "deploy" })
    const request = first.content.find((p) => p.type === "tool-approval-request") as any
    const second = await generateText({
      model: model(),
      tools,
      toolApproval,
      messages: [
        { role: "user", content: "deploy" },
        ...first.response.messages,
        {
          role: "tool",
          content: [
            {
              type: "tool-approval-response",
              approvalId: request.approvalId,
              approved: false,
              reason: "not today",
            },
          ],
        },
      ],
    })
    expect(second.text).toBe("ok, not deployed")
    expect(ran).toBe(0)
    expect(JSON.stringify(server.requests.at(-1).messages)).toMatch(/not today|denied/i)
  })

  it("without an approval link, a call the runner's gate refuses reads as an error", async () => {
    const runner = makeRunner()
    const { tools, toolApproval } = await toAISDKTools(runner)
    expect(Object.values(toolApproval).every((s) => s.type === "not-applicable")).toBe(true)
    scriptCalls(server, [["d3", "ops__deploy", '{"env":"prod"}']], "could not")
    await generateText({ model: model(), tools, prompt: "deploy", stopWhen: stepCountIs(3) })
    expect(toolMessages(server.requests.at(-1)).d3).toContain("APPROVAL_REQUIRED")
  })
})
