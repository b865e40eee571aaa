import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { GEMINI_NAME_PATTERN, mapToolNames } from "../src/index.js"

const segment = (first: string, rest: string, max: number) =>
  fc
    .tuple(fc.constantFrom(...first), fc.array(fc.constantFrom(...rest), { maxLength: max - 1 }))
    .map(([a, b]) => a + b.join(""))
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/** Valid tool ids: namespace `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`, name `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`. */
const toolId = fc
  .tuple(segment(ALNUM, `${ALNUM}_-`, 64), segment(`${ALNUM}_`, `${ALNUM}_.-`, 128))
  .map(([ns, name]) => `${ns}/${name}`)
/** Ids built to collide after sanitising: `.` vs `_`, `/` vs `__`. */
const colliding = fc
  .tuple(fc.constantFrom("a", "ns", "x_"), fc.constantFrom("b.c", "b_c", "_b.c", "b-c"))
  .chain(([ns, n]) => fc.constantFrom(`${ns}/${n}`, `${ns}_/${n}`, `${ns}/_${n}`))

describe("Gemini names", () => {
  test.prop([fc.uniqueArray(fc.oneof(toolId, colliding), { maxLength: 60 })])(
    "valid, unique and reversible for any set of ids, independent of order",
    (ids) => {
      const map = mapToolNames(ids)
      const names = ids.map((id) => map.nameOf(id)!)
      for (const n of names) expect(n).toMatch(GEMINI_NAME_PATTERN)
      expect(new Set(names).size).toBe(ids.length)
      for (const id of ids) expect(map.idOf(map.nameOf(id)!)).toBe(id)
      const reversed = mapToolNames([...ids].reverse())
      for (const id of ids) expect(reversed.nameOf(id)).toBe(map.nameOf(id))
    },
  )

  it("keeps readable names, hashes every collision and long id", () => {
    const map = mapToolNames(["a/b.c", "a/b_c", "weather/current", `x/${"y".repeat(80)}`])
    expect(map.nameOf("weather/current")).toBe("weather__current")
    expect(map.nameOf("a/b.c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(map.nameOf("a/b_c")).toMatch(/^a__b_c_[0-9a-f]{10}$/)
    expect(map.nameOf(`x/${"y".repeat(80)}`)).toHaveLength(64)
    expect(map.renames.map((r) => r.reason).sort()).toEqual([
      "collision",
      "collision",
      "separator",
      "shortened",
    ])
    expect(map.idOf("nope")).toBeUndefined()
  })

  it("puts _ in front of names that would start with a digit", () => {
    const map = mapToolNames(["9ns/x", "_9ns/x", "ok/1"])
    expect(map.nameOf("ok/1")).toBe("ok__1")
    expect(map.nameOf("9ns/x")).toMatch(/^_9ns__x_[0-9a-f]{10}$/)
    expect(map.nameOf("_9ns/x")).toMatch(/^_9ns__x_[0-9a-f]{10}$/)
  })
})
