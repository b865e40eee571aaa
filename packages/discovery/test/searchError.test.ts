/**
 * SearchError crosses a boundary as itself: its JSON text rebuilds (through foundation's
 * `toolErrorFromJson` and the decoder discovery registers) the same class with the same fields and message.
 */
import { isToolError, toolErrorFromJson, toolErrorToJson } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { SearchError, Searcher, ToolIndex } from "../src/index.js"

const overTheWire = (error: SearchError) =>
  toolErrorFromJson(JSON.parse(JSON.stringify(toolErrorToJson(error))))

describe("SearchError JSON round trip", () => {
  it("rebuilds every reason code with its reason and message", () => {
    for (const code of ["UnknownTool", "InvalidOptions", "InvalidTool", "EmbedderFailed"] as const) {
      const original = new SearchError(code, `something about ${code}`)
      const back = overTheWire(original)
      expect(back).toBeInstanceOf(SearchError)
      expect(isToolError(back)).toBe(true)
      const rebuilt = back as SearchError
      expect(rebuilt._tag).toBe("SearchError")
      expect(rebuilt.code).toBe(code)
      expect(rebuilt.reason).toBe(`something about ${code}`)
      expect(rebuilt.message).toBe(original.message)
    }
  })

  it("rebuilds an error discovery really raised", () => {
    let raised: unknown
    try {
      new Searcher(new ToolIndex([])).similar("nowhere/tool")
    } catch (error) {
      raised = error
    }
    if (!(raised instanceof SearchError)) throw new Error(`expected a SearchError, got ${String(raised)}`)
    const back = overTheWire(raised)
    expect(back).toBeInstanceOf(SearchError)
    expect(back).toMatchObject({ code: raised.code, reason: raised.reason, message: raised.message })
  })

  it("gives undefined for a malformed SearchError instead of a half-built one", () => {
    const json = toolErrorToJson(new SearchError("InvalidOptions", "bad"))
    expect(toolErrorFromJson({ ...json, code: "NotACode" })).toBeUndefined()
    expect(toolErrorFromJson({ ...json, reason: 42 })).toBeUndefined()
  })
})
