/** Random schemas from the wild (schemaArbitrary.ts) through the export, checked by the independent checker. */
import { fc, test } from "@fast-check/vitest"
import type { Tool } from "@toolplane/foundation"
import { rootSchemaArb } from "@toolplane/testkit"
import { describe, expect } from "vitest"
import { toAnthropicTools } from "../src/index.js"
import { toolViolations } from "./anthropicChecker.js"

const tool = (inputSchema: unknown): Tool =>
  ({ id: "fuzz/tool", namespace: "fuzz", name: "tool", inputSchema }) as Tool

describe("Anthropic export of random wild schemas", () => {
  test.prop([rootSchemaArb, fc.boolean()], { numRuns: 300 })(
    "never throws; every exported tool passes the checker (strict or not)",
    (schema, strict) => {
      const set = toAnthropicTools([tool(schema)], { strict })
      expect(set.tools).toHaveLength(1)
      expect(toolViolations(set.tools[0])).toEqual([])
      if (strict && set.tools[0]!.strict !== true)
        expect(set.warnings.some((w) => w.feature === "strict")).toBe(true)
    },
  )
})
