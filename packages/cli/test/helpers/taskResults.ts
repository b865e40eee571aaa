/**
 * A `fetch` for an SDK v2 client that also keeps every `CreateTaskResult` (`resultType: "task"`) the
 * server answered with: SDK v2 2.4.0's `callTool` refuses that result type, so tests read the task handle
 * from here and drive `tasks/*` with `client.request`.
 */
import type { Client } from "@modelcontextprotocol/client"
import { z } from "zod"

export const recordingTaskResults =
  (created: Record<string, any>[]) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init)
    const text = await response.clone().text()
    for (const line of text.split("\n")) {
      const json = line.startsWith("data:") ? line.slice(5) : line
      if (!json.includes('"resultType":"task"')) continue
      try {
        created.push(JSON.parse(json).result)
      } catch {
        // not a whole message
      }
    }
    return response
  }

const AnyResult = z.looseObject({})

/** A `tasks/*` request through an SDK v2 client (which has no typed methods for them). */
export const taskRequest = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, AnyResult) as Promise<Record<string, any>>

/** Whether a task status is final. */
export const isTerminal = (status: string): boolean => ["completed", "failed", "cancelled"].includes(status)

/** Polls `tasks/get` until `done(status)` (or 15 s); the last state. */
export const pollTask = async (
  client: Client,
  taskId: string,
  done: (status: string) => boolean,
  intervalMs = 50,
): Promise<Record<string, any>> => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const state = await taskRequest(client, "tasks/get", { taskId })
    if (done(state.status) || Date.now() > deadline) return state
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
