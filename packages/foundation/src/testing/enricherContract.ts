/**
 * The contract suite for enrichers (see {@link enricherContract}).
 *
 * @since 0.1.0
 */
import { describe, expect, it } from "vitest"
import type { Enricher, FollowUpLink } from "../enricher.js"
import { isJsonObject } from "../jsonObject.js"
import type { JsonValue } from "../jsonSchema.js"
import { makeTool, type Tool } from "../tool.js"
import { isToolId } from "../toolId.js"

/**
 * What the enricher contract needs: tools the enricher applies to, and calls and previous results to
 * try its argument transformation and follow-up projection on.
 *
 * @since 0.1.0
 */
export interface EnricherContractOptions {
  /** Tools of the enricher's categories, as a backend would list them. At least one. */
  readonly tools: readonly Tool[]
  /** Argument objects to transform, per tool id. Default: each tool's `exampleArgs`, else `{}`. */
  readonly calls?: readonly {
    readonly toolId: string
    readonly arguments: Readonly<Record<string, unknown>>
  }[]
  /** Previous results with the link followed from them, for `projectArgs`. */
  readonly followUps?: readonly {
    readonly toolId: string
    readonly result: JsonValue
    readonly link: FollowUpLink
    /** When given, the projected argument objects must equal these. */
    readonly expected?: readonly Record<string, unknown>[]
  }[]
}

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/**
 * Registers a vitest suite that checks an enricher honours the {@link Enricher} contract: a name and
 * stable, non-empty categories that cover the sample tools; `enrichSchema` returning a valid canonical
 * tool with the same id without touching its input (the input is deep-frozen); `transformArgs` returning
 * a plain object without touching its input; a value model whose cost is positive and whose follow-ups
 * name valid tool ids; `projectArgs` returning `undefined` or argument objects; and `rateLimitHost`
 * naming a bare host, not a URL.
 *
 * @example
 * ```ts
 * import { defineEnricher, makeTool } from "@toolplane/foundation"
 * import { enricherContract } from "@toolplane/foundation/testing"
 *
 * enricherContract("github auth", () => defineEnricher({ name: "github-auth", categories: ["github"] }), {
 *   tools: [makeTool({ id: "github/search", category: "github" })],
 *   calls: [{ toolId: "github/search", arguments: { q: "bug" } }],
 * })
 * ```
 * @since 0.1.0
 */
export const enricherContract = (
  name: string,
  makeEnricher: () => Enricher,
  options: EnricherContractOptions,
): void => {
  describe(`enricher contract: ${name}`, () => {
    const enricher = makeEnricher()
    const calls =
      options.calls ??
      options.tools.flatMap((t) =>
        (t.exampleArgs?.length ? t.exampleArgs : [{}]).map((args) => ({ toolId: t.id, arguments: args })),
      )

    it("has a name and stable, non-empty categories covering the sample tools", () => {
      expect(typeof enricher.name).toBe("string")
      expect(enricher.name.length).toBeGreaterThan(0)
      const categories = enricher.supportedCategories()
      expect(categories.length).toBeGreaterThan(0)
      for (const c of categories) expect(typeof c === "string" && c.length > 0, `category ${c}`).toBe(true)
      expect(enricher.supportedCategories()).toEqual(categories)
      expect(options.tools.length, "give at least one sample tool").toBeGreaterThan(0)
      for (const tool of options.tools)
        expect(categories, `${tool.id} has category ${tool.category}`).toContain(tool.category)
    })

    it("enrichSchema returns a valid tool with the same id and leaves its input alone", () => {
      for (const tool of options.tools) {
        const input = deepFreeze(structuredClone(tool))
        const before = JSON.stringify(input)
        const enriched = enricher.enrichSchema(input)
        expect(JSON.stringify(input)).toBe(before)
        expect(enriched.id).toBe(tool.id)
        expect(() => makeTool(enriched), `enriched ${tool.id} is not a valid tool`).not.toThrow()
      }
    })

    it("transformArgs returns a plain object and leaves its input alone", () => {
      for (const call of calls) {
        const input = deepFreeze(structuredClone(call.arguments))
        const before = JSON.stringify(input)
        const out = enricher.transformArgs(call.toolId, input)
        expect(JSON.stringify(input)).toBe(before)
        expect(isJsonObject(out), `transformArgs(${call.toolId}) returned ${JSON.stringify(out)}`).toBe(true)
      }
    })

    it("describes values with a positive cost and follow-ups to valid tool ids", () => {
      for (const tool of options.tools) {
        const model = enricher.valueModel(tool.id)
        if (model === undefined) continue
        if (model.cost !== undefined) expect(model.cost).toBeGreaterThan(0)
        for (const link of model.followUps ?? []) expect(isToolId(link.toolId), link.toolId).toBe(true)
        if (model.rateLimitHost !== undefined) expect(model.rateLimitHost).toMatch(/^[^/:\s]+(:\d+)?$/)
      }
    })

    it("projects follow-up arguments as argument objects, or has no opinion", () => {
      for (const f of options.followUps ?? []) {
        const projected = enricher.projectArgs(f.toolId, deepFreeze(structuredClone(f.result)), f.link)
        if (projected === undefined) {
          expect(f.expected, `projectArgs(${f.toolId}) had no opinion`).toBeUndefined()
          continue
        }
        for (const args of projected) expect(isJsonObject(args)).toBe(true)
        if (f.expected !== undefined) expect(projected).toEqual(f.expected)
      }
    })

    it("names a bare host (no scheme or path) for rate limiting, or none", () => {
      for (const call of calls) {
        const host = enricher.rateLimitHost(call.toolId, call.arguments)
        if (host !== undefined) expect(host).toMatch(/^[^/:\s]+(:\d+)?$/)
      }
    })
  })
}
