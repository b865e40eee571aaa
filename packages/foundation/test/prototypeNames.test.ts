/**
 * Argument validation of properties named like `Object.prototype` members (`constructor`, `toString`,
 * `hasOwnProperty`, ...) or `__proto__`: an inherited member is never a present property, and an own
 * `__proto__` key (as `JSON.parse` makes it) is data like any other key.
 */
import { afterEach, describe, expect, it } from "vitest"
import {
  compileJsonSchema,
  defineTool,
  InvalidArguments,
  type JsonSchema,
  normalizeJsonSchema,
  type ValidationIssue,
} from "../src/index.js"

const issuesOf = (schema: JsonSchema, value: unknown): readonly ValidationIssue[] => {
  const result = compileJsonSchema(schema).validate(value)
  if (result instanceof Promise) throw new Error("JSON Schema validation is synchronous")
  return result.ok ? [] : result.issues
}

/** The arguments a model or client sends: parsed JSON, so `__proto__` is an own key. */
const json = (text: string): Record<string, unknown> => JSON.parse(text)

const schemaJson = (text: string): JsonSchema => JSON.parse(text)

/** The error a call failed with, checked to be InvalidArguments. */
const invalid = async (call: Promise<unknown>): Promise<InvalidArguments> => {
  const error = await call.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(InvalidArguments)
  return error as InvalidArguments
}

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__proto__"]

describe("required properties named like Object.prototype members", () => {
  it.each(INHERITED)("a missing required %s is reported as missing", (name) => {
    const schema = schemaJson(
      `{"type":"object","properties":{${JSON.stringify(name)}:{"type":"string"},"n":{"type":"number"}},"required":[${JSON.stringify(name)}]}`,
    )
    expect(issuesOf(schema, { n: 1 })).toEqual([
      { path: `/${name}`, rule: "required", message: `missing required property "${name}"` },
    ])
    expect(issuesOf(schema, json(`{${JSON.stringify(name)}:"x","n":1}`))).toEqual([])
  })

  it.each(INHERITED)("a required %s without a properties entry is still required", (name) => {
    const schema: JsonSchema = { type: "object", required: [name] }
    expect(issuesOf(schema, {}).map((i) => [i.path, i.rule])).toEqual([[`/${name}`, "required"]])
    expect(issuesOf(schema, json(`{${JSON.stringify(name)}:0}`))).toEqual([])
  })

  it("an optional constructor property that is absent is not a type error", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { constructor: { type: "string" }, toString: { type: "number" } },
    }
    expect(issuesOf(schema, {})).toEqual([])
    expect(issuesOf(schema, { constructor: 1 })).toEqual([
      { path: "/constructor", rule: "type", message: "must be string" },
    ])
  })

  it("nested objects, $defs and draft-07 schemas are covered too", () => {
    const nested: JsonSchema = {
      type: "object",
      properties: { options: { $ref: "#/$defs/options" } },
      required: ["options"],
      $defs: {
        options: {
          type: "object",
          properties: { valueOf: { type: "integer" } },
          required: ["valueOf"],
        },
      },
    }
    expect(issuesOf(nested, { options: {} })).toEqual([
      { path: "/options/valueOf", rule: "required", message: 'missing required property "valueOf"' },
    ])
    expect(issuesOf(nested, { options: { valueOf: 2 } })).toEqual([])
    const draft07: JsonSchema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { list: { type: "array", items: { type: "object", required: ["hasOwnProperty"] } } },
    }
    expect(issuesOf(draft07, { list: [{ hasOwnProperty: true }, {}] })).toEqual([
      {
        path: "/list/1/hasOwnProperty",
        rule: "required",
        message: 'missing required property "hasOwnProperty"',
      },
    ])
  })

  it("dependentRequired and draft-07 dependencies naming inherited members or __proto__", () => {
    const schema = schemaJson('{"type":"object","dependentRequired":{"a":["constructor"],"__proto__":["q"]}}')
    expect(issuesOf(schema, { a: 1 }).map((i) => [i.path, i.rule])).toEqual([["", "dependentRequired"]])
    expect(issuesOf(schema, { a: 1, constructor: 2 })).toEqual([])
    expect(issuesOf(schema, json('{"__proto__":1}')).map((i) => i.rule)).toEqual(["dependentRequired"])
    expect(issuesOf(schema, json('{"__proto__":1,"q":2}'))).toEqual([])
    const draft07 = schemaJson(
      '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"__proto__":["q"],"toString":{"required":["r"]}}}',
    )
    expect(issuesOf(draft07, {})).toEqual([])
    // restated as if/then: the missing property is named, then the failed condition
    expect(issuesOf(draft07, json('{"__proto__":1}')).map((i) => [i.path, i.rule])).toEqual([
      ["/q", "required"],
      ["", "if"],
    ])
    expect(issuesOf(draft07, json('{"__proto__":1,"q":2}'))).toEqual([])
    expect(issuesOf(draft07, { toString: 1 }).map((i) => [i.path, i.rule])).toEqual([["/r", "required"]])
  })
})

describe("a property named __proto__", () => {
  const strict = schemaJson(
    '{"type":"object","properties":{"__proto__":{"type":"string"},"q":{"type":"string"}},"required":["q"],"additionalProperties":false}',
  )

  it("is accepted when declared, also under additionalProperties: false", () => {
    expect(issuesOf(strict, json('{"__proto__":"x","q":"y"}'))).toEqual([])
  })

  it("is validated against its own subschema, with its path", () => {
    expect(issuesOf(strict, json('{"__proto__":1,"q":"y"}'))).toEqual([
      { path: "/__proto__", rule: "type", message: "must be string" },
    ])
    expect(issuesOf(strict, json('{"__proto__":{"polluted":true},"q":"y"}'))).toEqual([
      { path: "/__proto__", rule: "type", message: "must be string" },
    ])
  })

  it("is still an unexpected property where it is not declared", () => {
    const plain: JsonSchema = {
      type: "object",
      properties: { q: { type: "string" } },
      additionalProperties: false,
    }
    expect(issuesOf(plain, json('{"q":"y","__proto__":{"polluted":true}}'))).toEqual([
      { path: "/__proto__", rule: "additionalProperties", message: 'unexpected property "__proto__"' },
    ])
  })

  it("works with more than eight properties (Ajv's other additionalProperties code)", () => {
    const many: Record<string, unknown> = {}
    for (const k of "abcdefghij") many[k] = { type: "number" }
    const schema = schemaJson(
      JSON.stringify({
        type: "object",
        properties: { ...many, __x: 0 },
        additionalProperties: false,
      }).replace('"__x":0', '"__proto__":{"type":"boolean"}'),
    )
    expect(Object.hasOwn(schema.properties!, "__proto__")).toBe(true)
    expect(issuesOf(schema, json('{"a":1,"__proto__":true}'))).toEqual([])
    expect(issuesOf(schema, json('{"a":1,"__proto__":"no"}'))).toEqual([
      { path: "/__proto__", rule: "type", message: "must be boolean" },
    ])
    expect(issuesOf(schema, json('{"a":1,"zz":1}')).map((i) => i.path)).toEqual(["/zz"])
  })

  it("works in draft-07 schemas and under unevaluatedProperties: false", () => {
    const draft07 = schemaJson(
      '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"],"additionalProperties":false}',
    )
    expect(issuesOf(draft07, json('{"__proto__":3}'))).toEqual([])
    expect(issuesOf(draft07, json('{"__proto__":"3"}')).map((i) => [i.path, i.rule])).toEqual([
      ["/__proto__", "type"],
    ])
    expect(issuesOf(draft07, {}).map((i) => [i.path, i.rule])).toEqual([["/__proto__", "required"]])
    const unevaluated = schemaJson(
      '{"type":"object","allOf":[{"properties":{"__proto__":{"type":"string"}}}],"unevaluatedProperties":false}',
    )
    expect(issuesOf(unevaluated, json('{"__proto__":"x"}'))).toEqual([])
    expect(issuesOf(unevaluated, json('{"__proto__":"x","other":1}')).map((i) => [i.path, i.rule])).toEqual([
      ["", "unevaluatedProperties"],
    ])
  })

  it("keeps patternProperties that also match it", () => {
    const schema = schemaJson(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"patternProperties":{"^__":{"maxLength":2}},"additionalProperties":false}',
    )
    expect(issuesOf(schema, json('{"__proto__":"ab"}'))).toEqual([])
    expect(issuesOf(schema, json('{"__proto__":"abc"}')).map((i) => [i.path, i.rule])).toEqual([
      ["/__proto__", "maxLength"],
    ])
    expect(issuesOf(schema, json('{"__proto__":7}')).map((i) => [i.path, i.rule])).toEqual([
      ["/__proto__", "type"],
    ])
  })

  it("is rewritten without touching the schema object or its const/default values", () => {
    const text =
      '{"type":"object","properties":{"__proto__":{"type":"object","default":{"properties":{"__proto__":1}}}},"const":{"properties":{"__proto__":{}}}}'
    const schema = schemaJson(text)
    expect(issuesOf(schema, json('{"properties":{"__proto__":{}}}'))).toEqual([])
    expect(JSON.stringify(schema)).toBe(text)
  })

  it("survives normalizeJsonSchema and validates afterwards", () => {
    const { schema } = normalizeJsonSchema(
      schemaJson(
        '{"type":"object","properties":{"__proto__":{"type":"number","minimum":0,"exclusiveMinimum":true}},"required":["__proto__"],"additionalProperties":false}',
      ),
    )
    expect(issuesOf(schema, json('{"__proto__":1}'))).toEqual([])
    expect(issuesOf(schema, json('{"__proto__":0}')).map((i) => [i.path, i.rule])).toEqual([
      ["/__proto__", "exclusiveMinimum"],
    ])
    expect(issuesOf(schema, {})).toEqual([
      { path: "/__proto__", rule: "required", message: 'missing required property "__proto__"' },
    ])
  })
})

describe("through defineTool", () => {
  const received: unknown[] = []
  const tool = defineTool({
    id: "demo/proto",
    input: schemaJson(
      '{"type":"object","properties":{"__proto__":{"type":"object"},"constructor":{"type":"string"}},"required":["constructor"],"additionalProperties":false}',
    ),
    handler: (args) => {
      received.push(args)
      return "ok"
    },
  })

  it("hands an own __proto__ key to the handler unchanged, polluting nothing", async () => {
    received.length = 0
    const args = json('{"constructor":"c","__proto__":{"polluted":true}}')
    await tool.invoke(args)
    const got = received[0] as Record<string, unknown>
    expect(got).toBe(args)
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(got, "__proto__")?.value).toEqual({ polluted: true })
    expect(got.polluted).toBeUndefined()
    expect(JSON.stringify(got)).toBe('{"constructor":"c","__proto__":{"polluted":true}}')
  })

  it("fails with InvalidArguments naming the missing property", async () => {
    const error = await invalid(tool.invoke({}))
    expect(error.toolId).toBe("demo/proto")
    expect(error.issues).toEqual([
      { path: "/constructor", rule: "required", message: 'missing required property "constructor"' },
    ])
    expect(error.message).toContain("constructor")
  })

  it("names a wrong __proto__ value and its path", async () => {
    const error = await invalid(tool.invoke(json('{"constructor":"c","__proto__":"text"}')))
    expect(error.issues).toEqual([{ path: "/__proto__", rule: "type", message: "must be object" }])
  })
})
