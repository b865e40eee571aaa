/** Random schemas from the wild (schemaArbitrary.ts) through the export, checked by the independent checker. */
import { fc, test } from "@fast-check/vitest"
import type { Tool } from "@toolplane/foundation"
import { rootSchemaArb } from "@toolplane/testkit"
import { describe, expect } from "vitest"
import { restoreArguments, toGeminiTools } from "../src/index.js"
import { declarationViolations } from "./geminiChecker.js"

const tool = (inputSchema: unknown): Tool =>
  ({ id: "fuzz/tool", namespace: "fuzz", name: "tool", inputSchema }) as Tool

describe("Gemini export of random wild schemas", () => {
  test.prop([rootSchemaArb, fc.jsonValue()], { numRuns: 300 })(
    "never throws; every declaration passes the checker; restoring any arguments never throws",
    (schema, value) => {
      const set = toGeminiTools([tool(schema)])
      expect(set.declarations).toHaveLength(1)
      expect(declarationViolations(set.declarations[0])).toEqual([])
      const shape = set.byName.get(set.declarations[0]!.name)!.shape
      const args = typeof value === "object" && value !== null && !Array.isArray(value) ? value : { v: value }
      expect(() => restoreArguments(shape, args as Record<string, unknown>)).not.toThrow()
    },
  )
})
