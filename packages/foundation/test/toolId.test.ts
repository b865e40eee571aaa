import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { formatToolId, InvalidTool, isToolId, parseToolId, suggestToolIds } from "../src/index.js"

const nsChar = fc.constantFrom(..."abcXYZ019_-".split(""))
const nameChar = fc.constantFrom(..."abcXYZ019_-.".split(""))
const namespace = fc
  .tuple(fc.constantFrom(..."aZ09".split("")), fc.array(nsChar, { maxLength: 63 }))
  .map(([h, t]) => h + t.join(""))
const name = fc
  .tuple(fc.constantFrom(..."aZ0_".split("")), fc.array(nameChar, { maxLength: 127 }))
  .map(([h, t]) => h + t.join(""))

describe("tool ids", () => {
  it("parses namespace/name", () => {
    expect(parseToolId("github/create_issue")).toEqual({ namespace: "github", name: "create_issue" })
    expect(parseToolId("everything/get-tiny-image")).toEqual({
      namespace: "everything",
      name: "get-tiny-image",
    })
  })

  it.each([
    ["noslash", 'no "/" found'],
    ["a/b/c", 'exactly one "/"'],
    ["/name", "namespace is empty"],
    ["ns/", "name is empty"],
    ["n s/x", 'character " " at position 1'],
    ["ns/x y", 'character " " at position 1'],
    ["-ns/x", 'character "-" at position 0'],
    [`${"a".repeat(65)}/x`, "limit is 64"],
    [`a/${"b".repeat(129)}`, "limit is 128"],
  ])("rejects %j saying what is wrong", (input, fragment) => {
    let error: unknown
    try {
      parseToolId(input)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InvalidTool)
    expect((error as InvalidTool).reason).toContain(fragment)
    expect(isToolId(input)).toBe(false)
  })

  test.prop([namespace, name])("format and parse round-trip", (ns, n) => {
    const id = formatToolId({ namespace: ns, name: n })
    expect(parseToolId(id)).toEqual({ namespace: ns, name: n })
    expect(isToolId(id)).toBe(true)
  })

  test.prop([fc.string({ maxLength: 40 })])("isToolId agrees with parseToolId", (input) => {
    let parsed = true
    try {
      parseToolId(input)
    } catch {
      parsed = false
    }
    expect(isToolId(input)).toBe(parsed)
  })

  it("suggests close ids, best first", () => {
    const known = ["github/create_issue", "github/list_issues", "slack/post_message", "jira/create_issue"]
    expect(suggestToolIds("github/create_isue", known)[0]).toBe("github/create_issue")
    expect(suggestToolIds("gitlab/create_issue", known)).toContain("github/create_issue")
    expect(suggestToolIds("zzz/qqq", known)).toEqual([])
  })
})
