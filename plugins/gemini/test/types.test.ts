/**
 * The exported shapes against the `@google/genai` package's own types. `pnpm --filter
 * @toolplane/plugin-gemini typecheck` checks this file with tsc; vitest runs the runtime half.
 */
import type {
  Content,
  FunctionDeclaration,
  GenerateContentResponse,
  GoogleGenAI,
  Part,
  Schema,
  Tool,
} from "@google/genai"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  type FunctionResponsePartOut,
  fromFunctionDeclaration,
  type GeminiFunctionDeclaration,
  type GeminiSchema,
  type GenerateContentClient,
  runToolCalls,
  toGeminiTools,
} from "../src/index.js"
import { allDefinitions, search, testService } from "./support.js"

describe("exported shapes match the @google/genai types", () => {
  it("declarations are FunctionDeclaration[], the set's tool a Tool, schemas Schemas", () => {
    const set = toGeminiTools([...allDefinitions, search])
    const declarations: FunctionDeclaration[] = set.declarations
    const tool: Tool = set.tool
    const json: FunctionDeclaration[] = toGeminiTools(allDefinitions, { schema: "jsonSchema" }).declarations
    expectTypeOf<GeminiFunctionDeclaration>().toExtend<FunctionDeclaration>()
    expectTypeOf<GeminiSchema>().toExtend<Schema>()
    expect(declarations.length + json.length).toBe(11)
    expect(tool.functionDeclarations).toBe(declarations)
  })

  it("function responses are Parts of a user Content; the client fits the loop", async () => {
    expectTypeOf<FunctionResponsePartOut>().toExtend<Part>()
    expectTypeOf<GoogleGenAI>().toExtend<GenerateContentClient>()
    expectTypeOf(runToolCalls(testService().service, {} as GenerateContentResponse)).resolves.toEqualTypeOf<
      FunctionResponsePartOut[]
    >()
    const parts: Part[] = await runToolCalls(testService().service, [
      { functionCall: { id: "f1", name: "math__add", args: { a: 1, b: 2 } } },
    ] satisfies Part[])
    const next: Content = { role: "user", parts }
    expect(next.parts).toEqual([
      { functionResponse: { id: "f1", name: "math__add", response: { output: "3" } } },
    ])
  })

  it("imports the SDK's declaration shape", () => {
    const declaration = {
      name: "lookup",
      description: "Looks up",
      parameters: {
        type: "OBJECT" as Schema["type"],
        properties: { q: { type: "STRING" as Schema["type"] } },
        required: ["q"],
      },
    } satisfies FunctionDeclaration
    const tool = fromFunctionDeclaration(declaration)
    expect(tool.id).toBe("gemini/lookup")
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    })
  })
})
