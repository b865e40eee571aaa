/**
 * One 2026-07-28 (stateless) request over plain HTTP, as a modern client sends it: the envelope in
 * `_meta`, the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), no session.
 */
export interface ModernAnswer {
  readonly status: number
  readonly body: {
    readonly id?: unknown
    readonly result?: Record<string, unknown>
    readonly error?: { code: number; message: string; data?: Record<string, unknown> }
  }
}

let nextId = 1

export const modernPost = async <Body = ModernAnswer["body"]>(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    capabilities?: Record<string, unknown>
    token?: string
    meta?: Record<string, unknown>
    /** The request id (default: the next of a counter). */
    id?: number
    /** More headers, added last (e.g. `Mcp-Param-*`). */
    headers?: Record<string, string>
  } = {},
): Promise<{ readonly status: number; readonly body: Body }> => {
  const name =
    typeof params.name === "string"
      ? params.name
      : typeof params.uri === "string"
        ? params.uri
        : typeof params.taskId === "string"
          ? params.taskId
          : undefined
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name !== undefined ? { "mcp-name": name } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? { elicitation: {} },
          ...options.meta,
        },
      },
    }),
  })
  const text = await response.text()
  // an SSE answer: its last event is the response
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .at(-1)!
        .slice(6)
    : text
  return { status: response.status, body: JSON.parse(json) as Body }
}
