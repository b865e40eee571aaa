/**
 * Parameters named like `Object.prototype` members (`constructor`, `toString`) or `__proto__` through the
 * gateway's request validation and argument overrides (defaults, injected values, renames), with
 * arguments parsed from JSON (so `__proto__` is an own key).
 */
import { defineTool, type JsonSchema, listAllTools, type ToolService } from "@toolplane/foundation"
import { afterEach, describe, expect, it } from "vitest"
import { argumentOverrides, requestValidation } from "../src/index.js"
import { bareService, recording } from "./support/bareService.js"

const json = (text: string): Record<string, unknown> => JSON.parse(text)

const proto = defineTool({
  id: "demo/proto",
  annotations: { readOnlyHint: true },
  input: JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"object"},"constructor":{"type":"string"},"q":{"type":"string"},"n":{"type":"number"}},"additionalProperties":false}',
  ) as JsonSchema,
  handler: (args) => ({ keys: Object.keys(args) }),
})

const fresh = { listingTtlMs: 0 }

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

const sent = (rec: { calls: { arguments?: Record<string, unknown> }[] }) => rec.calls[0]!.arguments!

describe("prototype-named parameters through compose", () => {
  it("request validation passes an own __proto__ key on unchanged", async () => {
    const rec = recording(bareService([proto]))
    const svc = requestValidation()(rec.service)
    const args = json('{"__proto__":{"polluted":true},"q":"x"}')
    await svc.callTool({ name: "demo/proto", arguments: args })
    expect(sent(rec)).toBe(args)
    await expect(svc.callTool({ name: "demo/proto", arguments: { constructor: 1 } })).rejects.toMatchObject({
      _tag: "InvalidArguments",
      issues: [{ path: "/constructor", rule: "type" }],
    })
  })

  it("argument overrides keep an own __proto__ key the caller sent", async () => {
    const rec = recording(bareService([proto]))
    const svc = argumentOverrides({ "demo/proto": { n: { default: 5 } } }, fresh)(rec.service)
    await svc.callTool({ name: "demo/proto", arguments: json('{"__proto__":{"polluted":true},"q":"x"}') })
    const args = sent(rec)
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
    expect(JSON.stringify(args)).toBe('{"__proto__":{"polluted":true},"q":"x","n":5}')
  })

  it("a default for a parameter named constructor is applied when it is absent", async () => {
    const rec = recording(bareService([proto]))
    const svc = argumentOverrides({ "demo/proto": { constructor: { default: "made" } } }, fresh)(rec.service)
    const listed = (await listAllTools(svc as ToolService)).find((t) => t.id === "demo/proto")!
    const properties = listed.inputSchema.properties as Record<string, { default?: unknown }>
    expect(Object.getOwnPropertyDescriptor(properties, "constructor")?.value).toEqual({
      type: "string",
      default: "made",
    })
    await svc.callTool({ name: "demo/proto", arguments: {} })
    expect(sent(rec)).toEqual({ constructor: "made" })
  })

  it("an injected __proto__ value is an own key, not the arguments' prototype", async () => {
    const rec = recording(bareService([proto]))
    // as a config file's JSON says it (an object literal's `__proto__:` would set the prototype instead)
    const fromJson = argumentOverrides(
      JSON.parse('{"demo/proto":{"__proto__":{"value":{"polluted":true}}}}'),
      fresh,
    )(rec.service)
    const listed = (await listAllTools(fromJson)).find((t) => t.id === "demo/proto")!
    expect(Object.hasOwn(listed.inputSchema.properties!, "__proto__")).toBe(false)
    await fromJson.callTool({ name: "demo/proto", arguments: { q: "x" } })
    const args = sent(rec)
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(args, "__proto__")?.value).toEqual({ polluted: true })
  })

  it("a parameter renamed to toString is absent when the caller does not send it", async () => {
    const rec = recording(bareService([proto]))
    const svc = argumentOverrides({ "demo/proto": { q: { rename: "toString" } } }, fresh)(rec.service)
    await svc.callTool({ name: "demo/proto", arguments: {} })
    expect(sent(rec)).toEqual({})
    await svc.callTool({ name: "demo/proto", arguments: { toString: "x" } })
    expect(rec.calls[1]!.arguments).toEqual({ q: "x" })
  })
})
