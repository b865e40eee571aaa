/**
 * The real LangChain chat model (`@langchain/openai` ChatOpenAI) against a local OpenAI-compatible
 * server with scripted tool calls; tools executed through the real runner over an in-process backend,
 * both with LangChain's own tool invocation and with runLangChainToolCalls.
 */
import { type AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
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
import { describe, expect, it } from "vitest"
import { runLangChainToolCalls, toLangChainTools } from "../src/index.js"
import { chat, server } from "./support.js"

describe("ChatOpenAI with Toolplane tools", () => {
  it("a full loop with runLangChainToolCalls: parallel calls, unknown tool, bad arguments, invalid JSON, a failing tool", async () => {
    const runner = makeRunner(approveAll())
    const set = await toLangChainTools(runner)
    const start = scriptCalls(server, LOOP_CALLS, "Oslo is 4 degrees; 2+3=5.")
    const model = chat().bindTools(set.tools)
    const messages: BaseMessage[] = [new HumanMessage("go")]
    inflight.max = 0
    for (let step = 0; step < 4; step++) {
      const ai = (await model.invoke(messages)) as AIMessage
      messages.push(ai)
      if ((ai.tool_calls?.length ?? 0) + (ai.invalid_tool_calls?.length ?? 0) === 0) break
      messages.push(...(await runLangChainToolCalls(runner, ai, { tools: set })))
    }
    expect(messages.at(-1)!.content).toBe("Oslo is 4 degrees; 2+3=5.")
    // the model was offered the tools with their JSON Schemas
    const weather = server.requests[start].tools.find((t: any) => t.function.name === "weather__current")
    expect(weather.function.parameters.properties.city).toEqual({ type: "string", minLength: 2 })
    const out = toolMessages(server.requests[start + 1])
    expect(out.c1).toContain('"temp":4')
    expect(out.c2).toBe("5")
    expect(out.c3).toContain("Error [TOOL_NOT_FOUND]")
    expect(out.c3).toContain("Available tools: math__add")
    expect(out.c4).toContain("Error [INVALID_ARGUMENTS]")
    expect(out.c4).toContain("at /city")
    expect(out.c5).toContain("the reactor is offline")
    expect(out.c6).toContain("Error [INVALID_JSON]")
    const statuses = Object.fromEntries(
      messages
        .filter((m): m is ToolMessage => m instanceof ToolMessage)
        .map((m) => [m.tool_call_id, m.status]),
    )
    expect(statuses).toEqual({
      c1: "success",
      c2: "success",
      c3: "error",
      c4: "error",
      c5: "error",
      c6: "error",
    })
    expect(inflight.max).toBeGreaterThanOrEqual(2)
  })

  it("LangChain's own tool invocation: results, typed failures as error tool messages", async () => {
    const runner = makeRunner()
    const set = await toLangChainTools(runner)
    const byName = new Map(set.tools.map((t) => [t.name, t]))
    scriptCalls(
      server,
      [
        ["l1", "weather__current", '{"city":"Oslo"}'],
        ["l2", "ops__explode", "{}"],
        ["l3", "ops__deploy", '{"env":"prod"}'],
        ["l4", "screen__shot", "{}"],
      ],
      "done",
    )
    const model = chat().bindTools(set.tools)
    const messages: BaseMessage[] = [new HumanMessage("go")]
    const ai = (await model.invoke(messages)) as AIMessage
    messages.push(ai)
    const results = await Promise.all(ai.tool_calls!.map((call) => byName.get(call.name)!.invoke(call)))
    for (const r of results) expect(r).toBeInstanceOf(ToolMessage)
    messages.push(...(results as ToolMessage[]))
    const final = await model.invoke(messages)
    expect(final.content).toBe("done")
    const [weather, explode, deploy, shot] = results as ToolMessage[]
    expect(weather!.status).toBe("success")
    expect(weather!.content).toContain('"temp":4')
    expect(explode!.status).toBe("error")
    expect(explode!.content).toContain("Error [EXECUTION_FAILED]")
    expect(deploy!.status).toBe("error")
    expect(deploy!.content).toContain("Error [APPROVAL_REQUIRED]")
    expect(shot!.content).toEqual([
      { type: "text", text: "the screen" },
      {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${Buffer.from("png").toString("base64")}` },
      },
    ])
    const sent = toolMessages(server.requests.at(-1))
    expect(sent.l2).toContain("the reactor is offline")
    expect(sent.l3).toContain("APPROVAL_REQUIRED")
  })

  it("prototype keys: properties and arguments named __proto__ or constructor go out and come back as data", async () => {
    const { service, calls } = prototypeKeyService()
    const set = await toLangChainTools(service)
    const args = JSON.stringify(prototypeKeyArguments())
    const start = scriptCalls(server, [["p1", "keys__echo", args]], "echoed")
    const ai = (await chat().bindTools(set.tools).invoke("go")) as AIMessage
    const [offered] = offeredTools(server.requests[start])
    expect(ownKeysAt(offered, "parameters", "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    const [message] = await runLangChainToolCalls(service, ai, { tools: set })
    expect(echoViolations(calls, args)).toEqual([])
    expect(message!.content).toBe(args)
  })

  it("bad arguments through LangChain's own validation name what was wrong", async () => {
    const set = await toLangChainTools(makeRunner(approveAll()))
    const weather = set.tools.find((t) => t.name === "weather__current")!
    await expect(
      weather.invoke({ id: "v1", name: "weather__current", args: { city: 5 }, type: "tool_call" }),
    ).rejects.toThrow(/did not match expected schema[\s\S]*city/)
    // called with bare arguments, a typed failure is thrown as a readable Error
    const explode = set.tools.find((t) => t.name === "ops__explode")!
    await expect(explode.invoke({})).rejects.toThrow(/\[EXECUTION_FAILED\][\s\S]*reactor is offline/)
  })

  it("the run's abort signal reaches the tool", async () => {
    const set = await toLangChainTools(makeRunner(approveAll()))
    const slow = set.tools.find((t) => t.name === "ops__slow")!
    const controller = new AbortController()
    aborted.value = undefined
    setTimeout(() => controller.abort(), 100)
    const t0 = performance.now()
    await slow.invoke({}, { signal: controller.signal }).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 50))
    expect(aborted.value).toBe(true)
    expect(performance.now() - t0).toBeLessThan(3_000)
  })
})
