import { describe, expect, it } from "vitest"
import { GEMINI_NAME_PATTERN, mapToolNames, readableName } from "../src/index.js"

// the allocator itself is foundation's (tested there with random id sets); this checks Gemini's rule
describe("Gemini names", () => {
  it("keeps readable names, hashes every collision and long id, all valid Gemini names", () => {
    const ids = ["a/b.c", "a/b_c", "weather/current", `x/${"y".repeat(80)}`, "9ns/x", "_9ns/x", "ok/1"]
    const map = mapToolNames(ids)
    expect(map.nameOf("weather/current")).toBe("weather__current")
    expect(map.nameOf("a/b.c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(map.nameOf(`x/${"y".repeat(80)}`)).toHaveLength(64)
    for (const id of ids) {
      expect(map.nameOf(id)).toMatch(GEMINI_NAME_PATTERN)
      expect(map.idOf(map.nameOf(id)!)).toBe(id)
    }
    expect(map.idOf("nope")).toBeUndefined()
  })

  it("puts _ in front of names that would start with a digit", () => {
    const map = mapToolNames(["9ns/x", "_9ns/x", "ok/1", "7/y"])
    expect(map.nameOf("ok/1")).toBe("ok__1")
    expect(map.nameOf("7/y")).toBe("_7__y")
    expect(readableName("7/y")).toBe("_7__y")
    expect(map.nameOf("9ns/x")).toMatch(/^_9ns__x_[0-9a-f]{10}$/)
    expect(map.nameOf("_9ns/x")).toMatch(/^_9ns__x_[0-9a-f]{10}$/)
  })
})
