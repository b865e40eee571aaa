/** The exported shapes type-check against the `ai` package's own types. */

import type { Backend } from "@toolplane/foundation"
import type { generateText, ToolSet } from "ai"
import { describe, expectTypeOf, it } from "vitest"
import type { AISDKBackend, AISDKToolSet } from "../src/index.js"

type GenerateOptions = Parameters<typeof generateText<ToolSet>>[0]

describe("types", () => {
  it("tools and toolApproval fit generateText's options", () => {
    expectTypeOf<AISDKToolSet["tools"]>().toExtend<ToolSet>()
    expectTypeOf<AISDKToolSet["toolApproval"]>().toExtend<NonNullable<GenerateOptions["toolApproval"]>>()
    expectTypeOf<AISDKBackend>().toExtend<Backend>()
  })
})
