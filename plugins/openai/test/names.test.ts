import { fc, test as fcTest } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { mapToolNames, OPENAI_NAME_PATTERN } from "../src/index.js"
import { hashedName, readableName } from "../src/internal/nameForms.js"

const nsChar = fc.constantFrom(..."abcXYZ019_-".split(""))
const nameChar = fc.constantFrom(..."abcXYZ019_-.".split(""))
const toolId = fc
  .tuple(
    fc.tuple(fc.constantFrom(..."aZ9".split("")), fc.array(nsChar, { maxLength: 40 })),
    fc.tuple(fc.constantFrom(..."aZ9_".split("")), fc.array(nameChar, { maxLength: 100 })),
  )
  .map(([[n0, ns], [m0, name]]) => `${n0}${ns.join("")}/${m0}${name.join("")}`)

describe("tool name mapping", () => {
  it("keeps readable names when they fit and are unique", () => {
    const names = mapToolNames(["weather/current", "github/create_issue"])
    expect(names.nameOf("weather/current")).toBe("weather__current")
    expect(names.idOf("github__create_issue")).toBe("github/create_issue")
    expect(names.renames).toEqual([
      { id: "github/create_issue", name: "github__create_issue", reason: "separator" },
      { id: "weather/current", name: "weather__current", reason: "separator" },
    ])
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
    expect(name).toMatch(OPENAI_NAME_PATTERN)
    expect(name.startsWith("nnnn")).toBe(true)
    expect(name).toBe(hashedName(id))
    expect(mapToolNames([id]).renames[0]!.reason).toBe("shortened")
  })

  it("hashes every member of a collision, whatever the order", () => {
    const ids = ["fs/read.file", "fs/read_file", "other/tool"]
    const a = mapToolNames(ids)
    const b = mapToolNames([...ids].reverse())
    expect(readableName("fs/read.file")).toBe(readableName("fs/read_file"))
    expect(a.nameOf("fs/read.file")).not.toBe(a.nameOf("fs/read_file"))
    expect(a.nameOf("fs/read.file")).toMatch(/^fs__read_file_[0-9a-f]{10}$/)
    expect(a.nameOf("other/tool")).toBe("other__tool")
    expect(a.entries).toEqual(b.entries)
    expect(a.renames.filter((r) => r.reason === "collision").map((r) => r.id)).toEqual([
      "fs/read.file",
      "fs/read_file",
    ])
  })

  it("does not let a hashed name take a readable name of the set", () => {
    const long = `a/${"b".repeat(70)}`
    const squatter = `${hashedName(long).slice(0, hashedName(long).indexOf("__"))}/${hashedName(long).slice(hashedName(long).indexOf("__") + 2)}`
    const names = mapToolNames([long, squatter])
    expect(names.nameOf(squatter)).toBe(hashedName(long))
    expect(names.nameOf(long)).not.toBe(hashedName(long))
    expect(names.idOf(names.nameOf(long)!)).toBe(long)
  })

  fcTest.prop([fc.uniqueArray(toolId, { minLength: 1, maxLength: 40 })], { numRuns: 150 })(
    "names are valid, unique, reversible and independent of order and run",
    (ids) => {
      const names = mapToolNames(ids)
      const seen = new Set<string>()
      for (const id of ids) {
        const name = names.nameOf(id)!
        expect(name).toMatch(OPENAI_NAME_PATTERN)
        expect(seen.has(name)).toBe(false)
        seen.add(name)
        expect(names.idOf(name)).toBe(id)
      }
      const again = mapToolNames([...ids].reverse())
      expect(again.entries).toEqual(names.entries)
      // a tool whose readable name fits and is unique keeps it
      const readableCounts = new Map<string, number>()
      for (const id of ids)
        readableCounts.set(readableName(id), (readableCounts.get(readableName(id)) ?? 0) + 1)
      for (const id of ids) {
        const r = readableName(id)
        if (
          r.length <= 64 &&
          readableCounts.get(r) === 1 &&
          !ids.some((o) => o !== id && names.nameOf(o) === r)
        )
          expect(names.nameOf(id)).toBe(r)
      }
    },
  )
})
