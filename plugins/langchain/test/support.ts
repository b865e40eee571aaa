/**
 * What this plugin's tests against a local OpenAI-compatible server share: the server (started when a
 * test file imports this module, closed after its tests) and the real LangChain chat model that talks
 * to it.
 */
import { ChatOpenAI } from "@langchain/openai"
import { startChatServer } from "@toolplane/testkit"
import { afterAll } from "vitest"

export const server = await startChatServer()
afterAll(() => server.close())

/** `ChatOpenAI` pointed at {@link server}, without retries. */
export const chat = () =>
  new ChatOpenAI({
    model: "gpt-test",
    apiKey: "sk-test",
    maxRetries: 0,
    configuration: { baseURL: server.baseURL },
  })
