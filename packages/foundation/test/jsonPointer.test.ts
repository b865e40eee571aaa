import { describe, expect, it } from "vitest"
import { escapeJsonPointer, isJsonObject, unescapeJsonPointer } from "../src/index.js"

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
