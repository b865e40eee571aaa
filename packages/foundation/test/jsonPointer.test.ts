import { describe, expect, it } from "vitest"
import { escapeJsonPointer, isJsonObject, resolveLocalRef, unescapeJsonPointer } from "../src/index.js"

describe("JSON helpers", () => {
  it("escapes and unescapes pointer segments (RFC 6901), ~ before /", () => {
    expect(escapeJsonPointer("a/b~c")).toBe("a~1b~0c")
    expect(escapeJsonPointer("~1")).toBe("~01")
    expect(unescapeJsonPointer("~01")).toBe("~1")
    for (const s of ["", "plain", "a/b", "~", "~0/~1", "__proto__"])
      expect(unescapeJsonPointer(escapeJsonPointer(s))).toBe(s)
  })

  it("tells JSON objects from null, arrays and primitives", () => {
    expect([{}, { a: 1 }, JSON.parse('{"__proto__":1}'), Object.create(null)].map(isJsonObject)).toEqual([
      true,
      true,
      true,
      true,
    ])
    expect([null, [], [1], "s", 1, undefined, true].map(isJsonObject)).toEqual(Array(7).fill(false))
  })
})

describe("resolveLocalRef", () => {
  const root = JSON.parse(
    '{"$defs":{"a/b":{"type":"string"},"__proto__":{"type":"number"},"list":[{"x":1}]},"type":"object"}',
  )
  it("follows local references through own properties, unescaping segments", () => {
    expect(resolveLocalRef(root, "#")).toBe(root)
    expect(resolveLocalRef(root, "#/$defs/a~1b")).toEqual({ type: "string" })
    expect(resolveLocalRef(root, "#/$defs/__proto__")).toEqual({ type: "number" })
    expect(resolveLocalRef(root, "#/type")).toBe("object")
  })
  it("gives undefined for inherited names, arrays, missing segments and remote references", () => {
    expect(resolveLocalRef(root, "#/$defs/constructor")).toBeUndefined()
    expect(resolveLocalRef(root, "#/$defs/list/0")).toBeUndefined()
    expect(resolveLocalRef(root, "#/$defs/nope/x")).toBeUndefined()
    expect(resolveLocalRef(root, "https://example.com/s.json#/a")).toBeUndefined()
    expect(resolveLocalRef(root, "other.json")).toBeUndefined()
  })
})
