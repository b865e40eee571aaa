import { describe, expect, it } from "vitest"
import { ANTHROPIC_NAME_PATTERN, mapToolNames, readableName } from "../src/index.js"

// the allocator itself is foundation's (tested there with random id sets); this checks Anthropic's rule
describe("Anthropic names", () => {
  it("keeps readable names, hashes every collision and long id, all valid Anthropic names", () => {
    const ids = ["a/b.c", "a/b_c", "weather/current", `x/${"y".repeat(80)}`, "9ns/x"]
    const map = mapToolNames(ids)
    expect(map.nameOf("weather/current")).toBe("weather__current")
    expect(map.nameOf("9ns/x")).toBe("9ns__x")
    expect(map.nameOf("a/b.c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(map.nameOf("a/b_c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(map.nameOf(`x/${"y".repeat(80)}`)).toHaveLength(64)
    for (const id of ids) {
      expect(map.nameOf(id)).toMatch(ANTHROPIC_NAME_PATTERN)
      expect(map.idOf(map.nameOf(id)!)).toBe(id)
    }
    expect(readableName("fs/read.file")).toBe("fs__read_file")
    expect(map.renames.map((r) => r.reason).sort()).toEqual([
      "collision",
      "collision",
      "separator",
      "separator",
      "shortened",
    ])
    expect(map.idOf("nope")).toBeUndefined()
  })
})
