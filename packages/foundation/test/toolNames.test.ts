import { createHash } from "node:crypto"
import { fc, test as fcTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { mapToolNames, readableToolName, type ToolNameRules } from "../src/index.js"

/** The hashed form the module documents, computed independently: readable prefix, `_`, 10 hex digits. */
const hashed = (id: string, rules: ToolNameRules = {}) =>
  `${readableToolName(id, rules).slice(0, 64 - 11)}_${createHash("sha256").update(id).digest("hex").slice(0, 10)}`

const DEFAULT_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/
const LETTER_FIRST_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

const segment = (first: string, rest: string, max: number) =>
  fc
    .tuple(fc.constantFrom(...first), fc.array(fc.constantFrom(...rest), { maxLength: max - 1 }))
    .map(([a, b]) => a + b.join(""))
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/** Valid tool ids: namespace `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`, name `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`. */
const toolId = fc
  .tuple(segment(ALNUM, `${ALNUM}_-`, 64), segment(`${ALNUM}_`, `${ALNUM}_.-`, 128))
  .map(([ns, name]) => `${ns}/${name}`)
/** Ids built to collide after sanitising: `.` vs `_`, `/` vs `__`, a digit first vs `_` in front. */
const colliding = fc
  .tuple(fc.constantFrom("a", "ns", "x_", "9", "_9"), fc.constantFrom("b.c", "b_c", "_b.c", "b-c"))
  .chain(([ns, n]) => fc.constantFrom(`${ns}/${n}`, `${ns}_/${n}`, `${ns}/_${n}`))

describe("tool name mapping", () => {
  it("keeps readable names when they fit and are unique", () => {
    const names = mapToolNames(["weather/current", "github/create_issue"])
    expect(names.nameOf("weather/current")).toBe("weather__current")
    expect(names.idOf("github__create_issue")).toBe("github/create_issue")
    expect(names.renames).toEqual([
      { id: "github/create_issue", name: "github__create_issue", reason: "separator" },
      { id: "weather/current", name: "weather__current", reason: "separator" },
    ])
    expect(names.idOf("nope")).toBeUndefined()
  })

  it("replaces dots and reports it", () => {
    const names = mapToolNames(["fs/read.file"])
    expect(names.nameOf("fs/read.file")).toBe("fs__read_file")
    expect(names.renames[0]!.reason).toBe("sanitized")
  })

  it("hashes long ids to 64 characters, keeping a readable prefix", () => {
    const id = `${"n".repeat(60)}/${"x".repeat(120)}`
    const name = mapToolNames([id]).nameOf(id)!
    expect(name).toHaveLength(64)
    expect(name).toMatch(DEFAULT_PATTERN)
    expect(name.startsWith("nnnn")).toBe(true)
    expect(name).toBe(hashed(id))
    expect(mapToolNames([id]).renames[0]!.reason).toBe("shortened")
  })

  it("hashes every member of a collision, whatever the order", () => {
    const ids = ["fs/read.file", "fs/read_file", "other/tool"]
    const a = mapToolNames(ids)
    const b = mapToolNames([...ids].reverse())
    expect(readableToolName("fs/read.file")).toBe(readableToolName("fs/read_file"))
    expect(a.nameOf("fs/read.file")).not.toBe(a.nameOf("fs/read_file"))
    expect(a.nameOf("fs/read.file")).toBe(hashed("fs/read.file"))
    expect(a.nameOf("other/tool")).toBe("other__tool")
    expect(a.entries).toEqual(b.entries)
    expect(a.renames.filter((r) => r.reason === "collision").map((r) => r.id)).toEqual([
      "fs/read.file",
      "fs/read_file",
    ])
  })

  it("does not let a hashed name take a readable name of the set", () => {
    const long = `a/${"b".repeat(70)}`
    const h = hashed(long)
    const squatter = `${h.slice(0, h.indexOf("__"))}/${h.slice(h.indexOf("__") + 2)}`
    const names = mapToolNames([long, squatter])
    expect(names.nameOf(squatter)).toBe(h)
    expect(names.nameOf(long)).not.toBe(h)
    expect(names.idOf(names.nameOf(long)!)).toBe(long)
  })

  it("letterFirst puts _ in front of names that would start with a digit or -, and says so", () => {
    const rules = { letterFirst: true }
    expect(readableToolName("9ns/x", rules)).toBe("_9ns__x")
    expect(readableToolName("9ns/x")).toBe("9ns__x")
    const map = mapToolNames(["9ns/x", "_9ns/x", "ok/1", "7/y"], rules)
    expect(map.nameOf("ok/1")).toBe("ok__1")
    expect(map.nameOf("9ns/x")).toBe(hashed("9ns/x", rules))
    expect(map.nameOf("_9ns/x")).toMatch(/^_9ns__x_[0-9a-f]{10}$/)
    expect(map.nameOf("7/y")).toBe("_7__y")
    expect(map.renames.find((r) => r.id === "7/y")?.reason).toBe("sanitized")
  })

  it("maxLength shortens names to the limit", () => {
    const map = mapToolNames(["ns/a_fairly_long_tool_name", "ns/short"], { maxLength: 20 })
    expect(map.nameOf("ns/short")).toBe("ns__short")
    expect(map.nameOf("ns/a_fairly_long_tool_name")).toHaveLength(20)
    expect(map.nameOf("ns/a_fairly_long_tool_name")).toMatch(/^ns__a_fai_[0-9a-f]{10}$/)
  })

  for (const [label, rules, pattern] of [
    ["default rules", {}, DEFAULT_PATTERN],
    ["letterFirst", { letterFirst: true }, LETTER_FIRST_PATTERN],
  ] as const)
    fcTest.prop([fc.uniqueArray(fc.oneof(toolId, colliding), { minLength: 1, maxLength: 50 })], {
      numRuns: 120,
    })(`${label}: names are valid, unique, reversible and independent of order and run`, (ids) => {
      const names = mapToolNames(ids, rules)
      const seen = new Set<string>()
      for (const id of ids) {
        const name = names.nameOf(id)!
        expect(name).toMatch(pattern)
        expect(seen.has(name)).toBe(false)
        seen.add(name)
        expect(names.idOf(name)).toBe(id)
      }
      const again = mapToolNames([...ids].reverse(), rules)
      expect(again.entries).toEqual(names.entries)
      // a tool whose readable name fits and is unique keeps it
      const readableCounts = new Map<string, number>()
      for (const id of ids) {
        const r = readableToolName(id, rules)
        readableCounts.set(r, (readableCounts.get(r) ?? 0) + 1)
      }
      for (const id of ids) {
        const r = readableToolName(id, rules)
        if (
          r.length <= 64 &&
          readableCounts.get(r) === 1 &&
          !ids.some((o) => o !== id && names.nameOf(o) === r)
        )
          expect(names.nameOf(id)).toBe(r)
      }
    })
})
