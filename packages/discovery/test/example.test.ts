import { describe, expect, it } from "vitest"
import { main } from "../examples/searchMode.js"

describe("README example (examples/searchMode.ts)", () => {
  it("goes search_tools → describe_tool → call_tool over three listed tools", async () => {
    const lines: string[] = []
    const result = await main((line) => lines.push(line))
    expect(lines[0]).toBe("listed: toolplane/call_tool, toolplane/describe_tool, toolplane/search_tools")
    expect(lines[1]).toMatch(/^search_tools: weather\/forecast /)
    expect(result).toEqual({ city: "Paris", days: 2, forecast: "sunny" })
  })
})
