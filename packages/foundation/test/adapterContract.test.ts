/**
 * The adapter contract suite on a small adapter that cannot express `oneOf`, and proof that the suite's
 * checks see a silent drop: the same adapter without its warning fails the coverage rule.
 */
import { describe, expect, it } from "vitest"
import { type Adapter, makeTool, type Tool, unsupportedFeatures } from "../src/index.js"
import { adapterContract } from "../src/testing/index.js"

interface Native {
  readonly name: string
  readonly parameters: Tool["inputSchema"]
}

const toyAdapter = (warn: boolean): Adapter<Native> => {
  const adapter: Adapter<Native> = {
    name: "toy",
    supportsFeature: (feature) => feature !== "oneOf",
    toCanonical: (native) => makeTool({ id: native.name.replace("__", "/"), inputSchema: native.parameters }),
    fromCanonical: (tool) => ({
      value: { name: tool.id.replace("/", "__"), parameters: tool.inputSchema },
      warnings: warn ? unsupportedFeatures(tool, adapter) : [],
    }),
  }
  return adapter
}

const plain = makeTool({
  id: "demo/echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
})
const either = makeTool({
  id: "demo/either",
  inputSchema: { type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "number" }] } } },
})

adapterContract("a toy adapter", () => toyAdapter(true), {
  tools: [plain],
  lossy: [{ tool: either, feature: "oneOf" }],
})

describe("what the adapter contract catches", () => {
  it("an adapter that drops oneOf silently reports no warning where unsupportedFeatures finds one", () => {
    const silent = toyAdapter(false)
    expect(silent.fromCanonical(either).warnings).toEqual([])
    expect(unsupportedFeatures(either, silent).map((w) => w.feature)).toEqual(["oneOf"])
  })
})
