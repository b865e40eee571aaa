/**
 * The contract suite for protocol adapters (see {@link adapterContract}).
 *
 * @since 0.1.0
 */
import { describe, expect, it } from "vitest"
import { type Adapter, unsupportedFeatures } from "../adapter.js"
import { makeTool, type Tool } from "../tool.js"

/**
 * What the adapter contract needs: canonical tools to convert (at least one), and features the target
 * protocol cannot express, each with a tool that uses it.
 *
 * @since 0.1.0
 */
export interface AdapterContractOptions {
  /** Tools the adapter converts without losing anything that matters for the round trip. */
  readonly tools: readonly Tool[]
  /** Tools using a feature the adapter does not support; each conversion must warn about `feature`. */
  readonly lossy?: readonly { readonly tool: Tool; readonly feature: string }[]
  /**
   * Whether `toCanonical(fromCanonical(tool).value)` gives back the tool's id and input schema. Default
   * true; false for a protocol that cannot carry the canonical id (the tool comes back valid, renamed).
   */
  readonly roundTrip?: boolean
}

/**
 * Registers a vitest suite that checks an adapter honours the {@link Adapter} contract: a name; each
 * sample tool converts without touching its input and comes back from `toCanonical` as a valid tool (with
 * the same id and input schema, unless `roundTrip: false`); every warning names the adapter as its target and a JSON pointer path;
 * the warnings cover what `unsupportedFeatures` finds; and each lossy sample warns about its feature
 * instead of dropping it silently.
 *
 * @example
 * ```ts
 * import { makeTool } from "@toolplane/foundation"
 * import { adapterContract } from "@toolplane/foundation/testing"
 * import { mcpAdapter } from "@toolplane/plugin-mcp"
 *
 * adapterContract("mcp", () => mcpAdapter(), {
 *   tools: [makeTool({ id: "demo/echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } })],
 * })
 * ```
 * @since 0.1.0
 */
export const adapterContract = <Native>(
  name: string,
  makeAdapter: () => Adapter<Native>,
  options: AdapterContractOptions,
): void => {
  describe(`adapter contract: ${name}`, () => {
    const adapter = makeAdapter()

    it("has a name and answers supportsFeature with booleans", () => {
      expect(typeof adapter.name).toBe("string")
      expect(adapter.name.length).toBeGreaterThan(0)
      for (const feature of ["oneOf", "outputSchema", "annotations", "format:uri"])
        expect(typeof adapter.supportsFeature(feature)).toBe("boolean")
    })

    it("round-trips each sample tool: same id and input schema, input untouched", () => {
      expect(options.tools.length, "give at least one sample tool").toBeGreaterThan(0)
      for (const tool of options.tools) {
        const input = structuredClone(tool)
        const before = JSON.stringify(input)
        const { value, warnings } = adapter.fromCanonical(Object.freeze(input))
        expect(JSON.stringify(input)).toBe(before)
        const back = adapter.toCanonical(value)
        expect(() => makeTool(back), `toCanonical gave an invalid tool for ${tool.id}`).not.toThrow()
        if (options.roundTrip === false) continue
        expect(back.id).toBe(tool.id)
        if (warnings.length === 0) expect(back.inputSchema).toEqual(tool.inputSchema)
      }
    })

    it("warns with the adapter as target and a JSON pointer path, covering unsupportedFeatures", () => {
      for (const tool of [...options.tools, ...(options.lossy ?? []).map((l) => l.tool)]) {
        const { warnings } = adapter.fromCanonical(tool)
        for (const w of warnings) {
          expect(w.to).toBe(adapter.name)
          expect(w.path === "" || w.path.startsWith("/"), `path ${w.path}`).toBe(true)
        }
        const reported = new Set(warnings.map((w) => w.feature))
        for (const expected of unsupportedFeatures(tool, adapter))
          expect(reported, `${tool.id}: no warning for ${expected.feature}`).toContain(expected.feature)
      }
    })

    it("warns about each lossy sample's feature instead of dropping it silently", () => {
      for (const { tool, feature } of options.lossy ?? []) {
        expect(adapter.supportsFeature(feature), `${adapter.name} supports ${feature}`).toBe(false)
        const features = adapter.fromCanonical(tool).warnings.map((w) => w.feature)
        expect(features, `${tool.id}: no warning for ${feature}`).toContain(feature)
      }
    })
  })
}
