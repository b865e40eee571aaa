/**
 * The weather enricher: foundation's enricher contract suite, then the enricher inside a real runner
 * (`@toolplane/exec`) over real in-process tools (`@toolplane/plugin-local`), as a user assembles it.
 */
import { createRunner } from "@toolplane/exec"
import { defineTool, InvalidArguments, type JsonValue, listAllTools, toolOf } from "@toolplane/foundation"
import { enricherContract } from "@toolplane/foundation/testing"
import { localBackend } from "@toolplane/plugin-local"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { weatherEnricher } from "../src/index.js"

/** What the weather API received, per call: the tools echo their arguments. */
const received: Record<string, unknown>[] = []

const current = defineTool({
  id: "weather/current",
  category: "weather",
  description: "Current weather for a city",
  input: z.object({
    city: z.string().min(1),
    units: z.enum(["metric", "imperial"]).optional(),
    apiKey: z.string(),
  }),
  annotations: { readOnlyHint: true },
  handler: (args) => {
    received.push(args)
    return { city: args.city, units: args.units, temp: args.units === "imperial" ? 70 : 21 }
  },
})
const search = defineTool({
  id: "weather/search",
  category: "weather",
  description: "Finds cities by name",
  input: z.object({ q: z.string(), apiKey: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ q }) => ({
    matches: ["Oslo", "Osaka", "Oshawa", "Ostrava"]
      .filter((c) => c.toLowerCase().startsWith(q.toLowerCase()))
      .map((name) => ({ name })),
  }),
})
const clock = defineTool({
  id: "time/now",
  category: "time",
  handler: () => new Date(0).toISOString(),
})

enricherContract("weather", () => weatherEnricher({ apiKey: "k-123" }), {
  tools: [toolOf(current), toolOf(search)],
  calls: [
    { toolId: "weather/current", arguments: { city: "  New   York ", units: "F" } },
    { toolId: "weather/search", arguments: { q: "os" } },
  ],
  followUps: [
    {
      toolId: "weather/search",
      result: { matches: [{ name: "Oslo" }, { name: "Osaka" }, { name: "Oshawa" }, { name: "Ostrava" }] },
      link: { toolId: "weather/current", projection: "/matches", projectionArg: "city" },
      expected: [{ city: "Oslo" }, { city: "Osaka" }, { city: "Oshawa" }],
    },
    {
      toolId: "weather/current",
      result: { city: "Oslo" },
      link: { toolId: "weather/forecast" },
    },
  ],
})

describe("the weather enricher in a runner", () => {
  const enricher = weatherEnricher({ apiKey: "k-123", defaultUnits: "metric" })
  const runner = createRunner({
    backends: [localBackend([current, search, clock], { name: "weather", approval: "never" })],
    enrichers: [enricher],
  })
  afterAll(() => runner.close())

  it("lists the weather tools without the apiKey parameter, with the units default", async () => {
    const tools = await listAllTools(runner)
    expect(tools.map((t) => t.id)).toEqual(["weather/current", "weather/search"]) // time/now: no enricher for "time"
    const listed = tools.find((t) => t.id === "weather/current")!
    expect(Object.keys(listed.inputSchema.properties ?? {})).toEqual(["city", "units"])
    expect(listed.inputSchema.required).not.toContain("apiKey")
    expect(listed.inputSchema.properties?.units).toMatchObject({
      default: "metric",
      enum: ["metric", "imperial", "C", "F"],
    })
  })

  it("injects the key and normalises the arguments before the tool runs", async () => {
    received.length = 0
    const result = await runner.callTool({
      name: "weather/current",
      arguments: { city: "  New   York ", units: "imperial" },
    })
    expect(result.structuredContent).toEqual({ city: "New York", units: "imperial", temp: 70 })
    expect(received).toEqual([{ city: "New York", units: "imperial", apiKey: "k-123" }])
  })

  it("accepts the unit aliases the listed schema adds and hands the tool the canonical value", async () => {
    received.length = 0
    const result = await runner.callTool({ name: "weather/current", arguments: { city: "Oslo", units: "F" } })
    expect(result.structuredContent).toEqual({ city: "Oslo", units: "imperial", temp: 70 })
    expect(received).toEqual([{ city: "Oslo", units: "imperial", apiKey: "k-123" }])
  })

  it("still rejects arguments that are wrong for the listed schema, before the tool runs", async () => {
    received.length = 0
    await expect(runner.callTool({ name: "weather/current", arguments: { city: 7 } })).rejects.toBeInstanceOf(
      InvalidArguments,
    )
    expect(received).toEqual([])
  })

  it("describes cost, host and follow-ups, and projects a real search result into follow-up calls", async () => {
    expect(enricher.valueModel("weather/forecast")).toEqual({ cost: 3, rateLimitHost: "api.weather.example" })
    const model = enricher.valueModel("weather/search")!
    expect(model.followUps).toHaveLength(1)
    const found = await runner.callTool({ name: "weather/search", arguments: { q: "os" } })
    const followUps = enricher.projectArgs(
      "weather/search",
      found.structuredContent as JsonValue,
      model.followUps![0]!,
    )
    expect(followUps).toEqual([{ city: "Oslo" }, { city: "Osaka" }, { city: "Oshawa" }])
    const results = await Promise.all(
      followUps!.map((args) => runner.callTool({ name: model.followUps![0]!.toolId, arguments: args })),
    )
    expect(results.map((r) => (r.structuredContent as { city: string }).city)).toEqual([
      "Oslo",
      "Osaka",
      "Oshawa",
    ])
    expect(enricher.rateLimitHost("weather/current", {})).toBe("api.weather.example")
  })

  it("refuses an empty API key when it is made", () => {
    expect(() => weatherEnricher({ apiKey: "" })).toThrow("apiKey must not be empty")
  })
})
