/**
 * A local HTTP server on 127.0.0.1 that speaks OpenAI's POST /v1/chat/completions and POST /v1/responses
 * (non-streaming) with scripted replies, recording every request body. Stands in for the hosted model API only.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** @since 0.1.0 */
export type ScriptedCall = readonly [id: string, name: string, args: string]
/** @since 0.1.0 */
export type Reply = { readonly calls: readonly ScriptedCall[] } | { readonly text: string }

/** @since 0.1.0 */
export interface ChatServer {
  readonly baseURL: string
  readonly requests: any[]
  /** Replies in order; the reply for request i is `script(body, i)`. */
  script: (body: any, index: number) => Reply
  close(): Promise<void>
}

const completion = (reply: Reply) => ({
  id: "chatcmpl-test",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-test",
  choices: [
    {
      index: 0,
      message:
        "calls" in reply
          ? {
              role: "assistant",
              content: null,
              tool_calls: reply.calls.map(([id, name, args]) => ({
                id,
                type: "function",
                function: { name, arguments: args },
              })),
            }
          : { role: "assistant", content: reply.text },
      finish_reason: "calls" in reply ? "tool_calls" : "stop",
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
})

const response = (reply: Reply) => ({
  id: "resp_test",
  object: "response",
  created_at: 1_700_000_000,
  model: "gpt-test",
  status: "completed",
  output:
    "calls" in reply
      ? reply.calls.map(([id, name, args], i) => ({
          type: "function_call",
          id: `fc_${i}`,
          call_id: id,
          name,
          arguments: args,
          status: "completed",
        }))
      : [
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: reply.text, annotations: [] }],
          },
        ],
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  error: null,
  incomplete_details: null,
})

/** @since 0.1.0 */
export const startChatServer = async (): Promise<ChatServer> => {
  const requests: any[] = []
  const state: { script: ChatServer["script"] } = { script: () => ({ text: "done" }) }
  const server: Server = createServer((req, res) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => {
      const chat = req.url === "/v1/chat/completions"
      if (req.method !== "POST" || (!chat && req.url !== "/v1/responses")) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }))
        return
      }
      const body = JSON.parse(data)
      requests.push(body)
      res.writeHead(200, { "content-type": "application/json" })
      const reply = state.script(body, requests.length - 1)
      res.end(JSON.stringify(chat ? completion(reply) : response(reply)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    get script() {
      return state.script
    },
    set script(s) {
      state.script = s
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * The tool messages of a chat request, by tool call id.
 *
 * @since 0.1.0
 */
export const toolMessages = (body: any): Record<string, string> =>
  Object.fromEntries(
    (body.messages as any[])
      .filter((m) => m.role === "tool")
      .map((m) => [m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content)]),
  )

/**
 * Scripts `server` to answer the next request with `calls` and every later one with `text`; returns the
 * index of that next request in `server.requests`.
 *
 * @since 0.1.0
 */
export const scriptCalls = (server: ChatServer, calls: readonly ScriptedCall[], text: string): number => {
  const start = server.requests.length
  server.script = (_body, index) => (index === start ? { calls } : { text })
  return start
}

/**
 * The function tools a chat request offered, as the rule checker reads them (`toolListViolations`).
 *
 * @since 0.1.0
 */
export const offeredTools = (
  body: any,
): { readonly name: string; readonly description: unknown; readonly parameters: unknown }[] =>
  ((body.tools ?? []) as any[]).map((t) => ({
    name: t.function.name as string,
    description: t.function.description as unknown,
    parameters: t.function.parameters as unknown,
  }))
