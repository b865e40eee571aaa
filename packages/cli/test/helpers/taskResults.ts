/**
 * A `fetch` for an SDK v2 client that also keeps every `CreateTaskResult` (`resultType: "task"`) the
 * server answered with: SDK v2 2.4.0's `callTool` refuses that result type, so tests read the task handle
 * from here and drive `tasks/*` with `client.request`.
 */
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
