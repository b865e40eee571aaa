import { trace } from "@opentelemetry/api"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { defineEnricher, defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner } from "../src/index.js"
import { tick } from "./helpers.js"

const exporter = new InMemorySpanExporter()

describe("prefetch: spans", () => {
  beforeAll(() => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
  })
  afterAll(() => {
    trace.disable()
  })

  it("marks speculative calls' spans and hits' spans, and no real call's span as speculative", async () => {
    const list = defineTool({
      id: "t/list",
      input: z.object({}),
      annotations: { readOnlyHint: true },
      handler: () => ({ ids: ["x", "y"] }),
    })
    const get = defineTool({
      id: "t/get",
      input: z.object({ id: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ id }) => ({ id, size: id.length }),
    })
    const runner = createRunner({
      backends: [definitionBackend([list, get], { name: "tb" })],
      enrichers: [
        defineEnricher({
          name: "links",
          categories: [],
          valueModel: (id) =>
            id === "t/list"
              ? { followUps: [{ toolId: "t/get", projection: "/ids", projectionArg: "id" }] }
              : undefined,
        }),
      ],
      prefetch: { learning: false },
    })
    const context = { callerId: "A" }
    await runner.callTool({ name: "t/list", context })
    for (let i = 0; i < 20 && runner.prefetch!.stats().inFlight > 0; i++) await tick(1)
    const served = await runner.callTool({ name: "t/get", arguments: { id: "y" }, context })
    expect(served.structuredContent).toEqual({ id: "y", size: 1 })
    expect(runner.prefetch!.stats()).toMatchObject({ issued: 2, hits: 1 })

    const spans = exporter.getFinishedSpans()
    const speculative = spans.filter((s) => s.attributes["toolplane.prefetch.speculative"] === true)
    // The two prefetched gets ran speculatively, each in its own span.
    expect(speculative.map((s) => s.name).sort()).toEqual(["execute_tool t/get", "execute_tool t/get"])
    // The caller's two calls: neither is speculative; the get was a hit.
    const real = spans.filter((s) => s.attributes["toolplane.prefetch.speculative"] === undefined)
    expect(real.map((s) => s.name)).toEqual(["execute_tool t/list", "execute_tool t/get"])
    expect(real[1]!.attributes["toolplane.prefetch.hit"]).toBe(true)
    expect(real[0]!.attributes["toolplane.prefetch.hit"]).toBeUndefined()
    await runner.close()
  })
})
