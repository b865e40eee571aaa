import { defineTool, ToolNotFound } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner, toolRunnerToEffect } from "../src/index.js"

/** A tracer that keeps every span it makes. */
const recordingTracer = () => {
  const spans: Tracer.NativeSpan[] = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    },
  })
  return { tracer, spans }
}

describe("Effect face tracing", () => {
  const echo = defineTool({
    id: "fx/echo",
    annotations: { readOnlyHint: true },
    input: z.object({ v: z.string() }),
    handler: ({ v }) => v,
  })
  const runner = toolRunnerToEffect(
    createRunner({ backends: [definitionBackend([echo], { name: "fxb" })], tracing: false }),
  )

  it("wraps each call in an execute_tool span with tool, backend and outcome", async () => {
    const { tracer, spans } = recordingTracer()
    await Effect.runPromise(
      runner.callTool({ name: "fx/echo", arguments: { v: "x" } }).pipe(Effect.withTracer(tracer)),
    )
    const span = spans.find((s) => s.name === "execute_tool fx/echo")
    expect(span).toBeDefined()
    expect(span!.attributes.get("toolplane.tool.id")).toBe("fx/echo")
    expect(span!.attributes.get("toolplane.backend")).toBe("fxb")
    expect(span!.attributes.get("toolplane.outcome")).toBe("ok")
    expect(span!.status._tag).toBe("Ended")
  })

  it("records the failure's outcome", async () => {
    const { tracer, spans } = recordingTracer()
    const error = await Effect.runPromise(
      runner.callTool({ name: "fx/nope" }).pipe(Effect.flip, Effect.withTracer(tracer)),
    )
    expect(error).toBeInstanceOf(ToolNotFound)
    const span = spans.find((s) => s.name === "execute_tool fx/nope")
    expect(span!.attributes.get("toolplane.outcome")).toBeDefined()
    expect(span!.attributes.get("toolplane.outcome")).not.toBe("ok")
  })
})
