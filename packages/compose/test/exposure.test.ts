import {
  type Adapter,
  ConfigError,
  ConversionFailed,
  type Tool,
  unsupportedFeatures,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { expose, toolset } from "../src/index.js"
import { plainTool } from "./support/fixtures.js"

interface Native {
  readonly name: string
  readonly parameters: unknown
}

/** An adapter without `oneOf` and `format:*`, that cannot convert tools named `broken`. */
const adapter: Adapter<Native> = {
  name: "toy",
  toCanonical: (native) => plainTool(native.name),
  fromCanonical: (tool: Tool) => {
    if (tool.name === "broken") throw new Error("toy cannot express this tool")
    if (tool.name === "typed")
      throw new ConversionFailed({ toolId: tool.id, adapter: "toy", reason: "typed refusal" })
    return {
      value: { name: tool.id, parameters: tool.inputSchema },
      warnings: unsupportedFeatures(tool, adapter),
    }
  },
  supportsFeature: (feature) => feature !== "oneOf" && !feature.startsWith("format:"),
}

const nested = plainTool("a/nested", {
  inputSchema: {
    type: "object",
    properties: {
      target: {
        oneOf: [
          { type: "string", format: "uri" },
          { type: "object", properties: { id: { type: "integer" } } },
        ],
      },
    },
  },
})

const set = toolset("t")
  .fromTools([plainTool("a/ok"), plainTool("a/broken"), nested, plainTool("b/typed"), plainTool("c/last")])
  .build()

describe("exposure", () => {
  it("export() stops at the first failing tool with a typed error", () => {
    expect(() => expose(set, adapter).export()).toThrow(ConversionFailed)
    try {
      expose(set, adapter).export()
    } catch (error) {
      expect((error as ConversionFailed).toolId).toBe("a/broken")
      expect((error as ConversionFailed).reason).toContain("cannot express")
    }
    const fine = toolset("ok")
      .fromTools([plainTool("a/ok"), nested])
      .build()
    expect(
      expose(fine, adapter)
        .export()
        .map((n) => n.name),
    ).toEqual(["a/nested", "a/ok"])
  })

  it("exportWithWarnings() keeps going past failing tools and walks nested schemas once", () => {
    const report = expose(set, adapter).exportWithWarnings()
    expect(report.tools.map((n) => n.name)).toEqual(["a/nested", "a/ok", "c/last"])
    expect(report.errors.map((e) => [e.toolId, e.error._tag])).toEqual([
      ["a/broken", "ConversionFailed"],
      ["b/typed", "ConversionFailed"],
    ])
    expect(report.warnings.map((w) => `${w.toolId} ${w.feature} ${w.path}`)).toEqual([
      "a/nested oneOf /inputSchema/properties/target/oneOf",
      "a/nested format:uri /inputSchema/properties/target/oneOf/0/format",
    ])
  })

  it("requires a toolset and an adapter", () => {
    expect(() => expose(undefined as never, adapter)).toThrow(ConfigError)
    expect(() => expose(set, undefined as never)).toThrow(ConfigError)
  })
})
