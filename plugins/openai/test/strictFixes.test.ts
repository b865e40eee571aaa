/**
 * Regressions of the strict conversion and the argument restoring: unions next to object keywords,
 * nulls inside unions and wrapped roots, nested `$defs`, "any object" roots, the unknown-tool output.
 * Converted schemas are checked by Ajv (through foundation's validator) and by the independent checker.
 */
import { compileJsonSchema, defineTool, type JsonSchema, makeTool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { restoreArguments, runToolCalls, toOpenAITools, toStrictSchema } from "../src/index.js"
import { strictViolations } from "./strictChecker.js"
import { serviceOf } from "./support.js"

const valid = (schema: JsonSchema, value: unknown): boolean => {
  const r = compileJsonSchema(schema).validate(value)
  if (r instanceof Promise) throw new Error("async validator")
  return r.ok
}

const strictOf = (schema: JsonSchema) => {
  const r = toStrictSchema(schema)
  if (!r.ok) throw new Error(`not strict: ${r.path} ${r.reason}`)
  expect(strictViolations(r.schema)).toEqual([])
  return r
}

/**
 * `original` is valid for `source`; `strict` is what the model sends for it under strict mode (the same
 * arguments with `null` for every optional property left out, wrapped as `{ value }` when the root was).
 */
const expectRoundTrip = (source: JsonSchema, original: Record<string, unknown>, strict: unknown) => {
  const r = strictOf(source)
  expect(valid(source, original)).toBe(true)
  const sent = r.wrapped ? { value: strict } : strict
  expect({ sent, valid: valid(r.schema, sent) }).toEqual({ sent, valid: true })
  expect(restoreArguments(source, sent as Record<string, unknown>, { wrapped: r.wrapped })).toEqual(original)
}

const pathOrUrl: JsonSchema = {
  type: "object",
  anyOf: [
    {
      properties: { kind: { const: "path" }, path: { type: "string" }, recursive: { type: "boolean" } },
      required: ["kind", "path"],
    },
    {
      properties: { kind: { const: "url" }, url: { type: "string" }, timeoutMs: { type: "integer" } },
      required: ["kind", "url"],
    },
  ],
}

describe("unions next to object keywords", () => {
  it("a root { type: object, anyOf } accepts what the source accepts", () => {
    const r = strictOf(pathOrUrl)
    expect(r.wrapped).toBe(true)
    const value = (r.schema.properties as any).value
    expect(value.properties).toBeUndefined()
    expect(value.additionalProperties).toBeUndefined()
    expectRoundTrip(pathOrUrl, { kind: "path", path: "/a" }, { kind: "path", path: "/a", recursive: null })
    expectRoundTrip(
      pathOrUrl,
      { kind: "url", url: "https://x", timeoutMs: 5 },
      { kind: "url", url: "https://x", timeoutMs: 5 },
    )
    // the converted schema does not accept what the source rejects
    expect(valid(r.schema, { value: { kind: "path", url: "x" } })).toBe(false)
  })

  it("distributes shared properties into every branch (nested, oneOf, $ref branches)", () => {
    const source: JsonSchema = {
      type: "object",
      properties: {
        target: {
          type: "object",
          properties: { id: { type: "string" }, note: { type: "string" } },
          required: ["id"],
          oneOf: [
            { properties: { path: { type: "string" } }, required: ["path"] },
            { $ref: "#/$defs/Remote" },
          ],
        },
      },
      required: ["target"],
      $defs: { Remote: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
    }
    const r = strictOf(source)
    expect(r.wrapped).toBe(false)
    expectRoundTrip(
      source,
      { target: { id: "1", path: "/a" } },
      { target: { id: "1", note: null, path: "/a" } },
    )
    expectRoundTrip(
      source,
      { target: { id: "2", note: "n", url: "https://x" } },
      { target: { id: "2", note: "n", url: "https://x" } },
    )
    // the shared required property stays required in each branch
    expect(valid(r.schema, { target: { note: null, path: "/a" } })).toBe(false)
  })

  it("puts a lone type next to a union into the branches without one", () => {
    const source: JsonSchema = {
      type: "object",
      properties: { id: { type: "string", anyOf: [{ format: "email" }, { format: "uuid" }] } },
      required: ["id"],
    }
    strictOf(source)
    expectRoundTrip(source, { id: "a@b.co" }, { id: "a@b.co" })
  })

  it("falls back to strict: false when the shared part and a branch disagree", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { a: { type: "string" } },
      anyOf: [{ type: "string" }, { properties: { b: { type: "string" } } }],
    })
    expect(r.ok).toBe(false)
  })
})

describe("nulls inside unions and wrapped roots", () => {
  it("runToolCalls removes the nulls of optional properties in union branches and wrapped roots", async () => {
    const seen: unknown[] = []
    const fetchTool = defineTool({
      id: "files/fetch",
      description: "Fetches a path or a URL",
      input: pathOrUrl,
      handler: (args) => {
        seen.push(args)
        return "ok"
      },
    })
    const nested = defineTool({
      id: "files/stat",
      input: {
        type: "object",
        properties: {
          target: {
            anyOf: [
              {
                type: "object",
                properties: { path: { type: "string" }, follow: { type: "boolean" } },
                required: ["path"],
              },
              {
                type: "object",
                properties: { url: { type: "string" }, headers: { type: "boolean" } },
                required: ["url"],
              },
            ],
          },
        },
        required: ["target"],
      },
      handler: (args) => {
        seen.push(args)
        return "ok"
      },
    })
    const set = toOpenAITools([fetchTool, nested])
    expect(set.tools.map((t) => t.function.strict)).toEqual([true, true])
    const outputs = await runToolCalls(
      serviceOf([fetchTool, nested]),
      [
        {
          type: "function_call",
          call_id: "1",
          name: "files__fetch",
          arguments: JSON.stringify({ value: { kind: "path", path: "/a", recursive: null } }),
        },
        {
          type: "function_call",
          call_id: "2",
          name: "files__stat",
          arguments: JSON.stringify({ target: { url: "https://x", headers: null } }),
        },
      ],
      { tools: set },
    )
    expect(outputs.map((o) => o.output)).toEqual(["ok", "ok"])
    expect(seen).toEqual([{ kind: "path", path: "/a" }, { target: { url: "https://x" } }])
  })
})

describe("nested $defs and refs below the root", () => {
  it("hoists nested definitions and refs into properties, leaving no dangling $ref", () => {
    const source: JsonSchema = {
      type: "object",
      properties: {
        tree: {
          $defs: {
            Node: {
              type: "object",
              properties: {
                name: { type: "string" },
                children: { type: "array", items: { $ref: "#/properties/tree/$defs/Node" } },
              },
              required: ["name", "children"],
            },
          },
          $ref: "#/properties/tree/$defs/Node",
        },
        filter: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        also: { $ref: "#/properties/filter" },
        list: {
          definitions: { Tag: { type: "string", enum: ["a", "b"] } },
          type: "array",
          items: { $ref: "#/properties/list/definitions/Tag" },
        },
      },
      required: ["tree", "also", "list"],
      $defs: { Node: { type: "string" } },
    }
    const r = strictOf(source)
    // the referenced `filter` keeps its own contract, not the nullable rewrite of the optional property
    expectRoundTrip(
      source,
      { tree: { name: "r", children: [{ name: "c", children: [] }] }, also: { q: "x" }, list: ["a"] },
      {
        tree: { name: "r", children: [{ name: "c", children: [] }] },
        filter: null,
        also: { q: "x" },
        list: ["a"],
      },
    )
    expect(valid(r.schema, { tree: { name: "r", children: [] }, filter: null, also: null, list: [] })).toBe(
      false,
    )
    expect(
      valid(r.schema, { tree: { name: "r", children: [] }, filter: null, also: { q: "x" }, list: ["c"] }),
    ).toBe(false)
    expect(Object.keys(r.schema.$defs as object)).toContain("Node")
    expect((r.schema.$defs as any).Node).toEqual({ type: "string" })
  })

  it("hoists a recursive pointer into properties under a new definition", () => {
    const source: JsonSchema = {
      type: "object",
      properties: {
        dir: {
          type: "object",
          properties: { name: { type: "string" }, sub: { $ref: "#/properties/dir" } },
          required: ["name"],
        },
      },
      required: ["dir"],
    }
    const r = strictOf(source)
    expect(Object.keys(r.schema.$defs as object)).toEqual(["dir"])
    expectRoundTrip(
      source,
      { dir: { name: "a", sub: { name: "b" } } },
      { dir: { name: "a", sub: { name: "b", sub: null } } },
    )
  })
})

describe("a root object of any shape", () => {
  it("falls back to strict: false with an additionalProperties warning", () => {
    const anyObject = makeTool({ id: "multi/run", inputSchema: { type: "object" } })
    const none = makeTool({ id: "multi/none", inputSchema: { type: "object", additionalProperties: false } })
    const empty = makeTool({ id: "multi/empty", inputSchema: { type: "object", properties: {} } })
    const set = toOpenAITools([anyObject, none, empty])
    expect(set.tools.map((t) => [t.function.name, t.function.strict])).toEqual([
      ["multi__run", false],
      ["multi__none", true],
      ["multi__empty", true],
    ])
    expect(set.tools[0]!.function.parameters).toEqual({ type: "object" })
    expect(set.warnings.filter((w) => w.toolId === "multi/run").map((w) => w.feature)).toEqual(
      expect.arrayContaining(["additionalProperties"]),
    )
    expect(set.tools[1]!.function.parameters).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    })
  })
})

describe("failure outputs", () => {
  it("an unknown tool reads like every other failure", async () => {
    const [out] = await runToolCalls(serviceOf([]), [
      { type: "function_call", call_id: "x", name: "nope__tool", arguments: "{}" },
    ])
    expect(out!.output).toMatch(/^Error \[TOOL_NOT_FOUND\] calling "nope__tool": /)
  })
})
