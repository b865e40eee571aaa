import { trace } from "@opentelemetry/api"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner } from "../src/index.js"
import { tracingActive } from "../src/pipeline/trace.js"

const exporter = new InMemorySpanExporter()

describe("tracing", () => {
  beforeAll(() => {
    expect(tracingActive()).toBe(false)
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    trace.setGlobalTracerProvider(provider)
  })
  afterAll(() => {
    trace.disable()
  })

  it("emits one span per call with tool id, backend, outcome and duration", async () => {
    expect(tracingActive()).toBe(true)
    const echo = defineTool({
      id: "trace/echo",
      annotations: { readOnlyHint: true },
      input: z.object({ v: z.string() }),
      handler: ({ v }) => v,
    })
    const runner = createRunner({ backends: [definitionBackend([echo], { name: "tb" })] })
    await runner.callTool({ id: "call-1", name: "trace/echo", arguments: { v: "x" } })
    await runner.callTool({ name: "trace/echo", arguments: { v: 1 } }).catch(() => {})
    await runner.callTool({ name: "trace/nope" }).catch(() => {})
    const spans = exporter.getFinishedSpans()
    expect(spans).toHaveLength(3)
    const [ok, invalid, missing] = spans as [(typeof spans)[0], (typeof spans)[0], (typeof spans)[0]]
    expect(ok.name).toBe("execute_tool trace/echo")
    expect(ok.attributes).toMatchObject({
      "toolplane.tool.id": "trace/echo",
      "gen_ai.tool.name": "trace/echo",
      "gen_ai.tool.call.id": "call-1",
      "toolplane.backend": "tb",
      "toolplane.outcome": "ok",
      "toolplane.attempts": 1,
    })
    expect(typeof ok.attributes["toolplane.duration_ms"]).toBe("number")
    expect(invalid.attributes["toolplane.outcome"]).toBe("InvalidArguments")
    expect(invalid.status.code).toBe(2)
    expect(missing.attributes["toolplane.outcome"]).toBe("ToolNotFound")
    expect(missing.attributes["toolplane.backend"]).toBeUndefined()
  })

  it("emits nothing when tracing is switched off", async () => {
    exporter.reset()
    const echo = defineTool({ id: "trace/off", handler: () => "x" })
    const runner = createRunner({ backends: [definitionBackend([echo])], tracing: false })
    await runner.callTool({ name: "trace/off" })
    expect(exporter.getFinishedSpans()).toHaveLength(0)
  })
})
