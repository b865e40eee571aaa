/**
 * What this plugin's tests against a local OpenAI-compatible server share: the server (started when a
 * test file imports this module, closed after its tests) and the real AI SDK models that talk to it.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { startChatServer } from "@toolplane/testkit"
import type { LanguageModel } from "ai"
import { afterAll } from "vitest"

export const server = await startChatServer()
afterAll(() => server.close())

const provider = createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" })

/** The Chat Completions model. */
export const chatModel = (): LanguageModel => provider.chat("gpt-test")

/** The Responses API model. */
export const responsesModel = (): LanguageModel => provider.responses("gpt-test")
