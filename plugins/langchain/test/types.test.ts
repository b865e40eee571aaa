/** The exported shapes type-check against `@langchain/core`'s own types. */
import type { AIMessage, ToolMessage } from "@langchain/core/messages"
import type { StructuredToolInterface } from "@langchain/core/tools"
import type { Backend } from "@toolplane/foundation"
import { describe, expectTypeOf, it } from "vitest"
import type {
  AIMessageLike,
  LangChainBackend,
  LangChainToolSet,
  runLangChainToolCalls,
} from "../src/index.js"

describe("types", () => {
  it("tools, messages and backends fit LangChain's and Toolplane's types", () => {
    expectTypeOf<LangChainToolSet["tools"][number]>().toExtend<StructuredToolInterface>()
    expectTypeOf<AIMessage>().toExtend<AIMessageLike>()
    expectTypeOf<Awaited<ReturnType<typeof runLangChainToolCalls>>>().toEqualTypeOf<ToolMessage[]>()
    expectTypeOf<LangChainBackend>().toExtend<Backend>()
  })
})
