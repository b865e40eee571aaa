/**
 * `--via URL`: `list`, `search` and `call` against a running `toolplane serve --transport http` gateway
 * (an MCP client over Streamable HTTP) instead of starting every backend for one command. The gateway's
 * tool names (`server.tool_names`, default `"dotted"`: `math.add`) are shown and called as tool ids
 * (`math/add`). A bearer token comes from the environment variable named by `--token-env`.
 *
 * @since 0.1.0
 */
import {
  type CallToolRequest,
  makeContext,
  type Tool,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { type CommandContext, UsageError } from "../command.js"

/** The flags of a command that can run against a running gateway. @since 0.1.0 */
export const VIA_FLAGS = { via: "string", "token-env": "string" } as const

/** Help text of {@link VIA_FLAGS}. @since 0.1.0 */
export const VIA_HELP = {
  via: "URL  use a running `toolplane serve --transport http` gateway (its MCP endpoint) instead of starting the backends",
  "token-env": "VAR  with --via: the environment variable holding the gateway's bearer token",
} as const

/** The namespace the remote gateway's tools are kept under inside the MCP client. */
const REMOTE = "via"

/**
 * The tools of a running gateway as a `ToolService` whose ids are the gateway's own (`math/add` for the
 * MCP name `math.add`). Fails with `UsageError` for a bad URL or an unset token variable, and with the
 * client's `BackendUnavailable` when nothing answers.
 *
 * @since 0.1.0
 */
export const openVia = async (
  ctx: CommandContext,
): Promise<{ readonly service: ToolService; readonly close: () => Promise<void> }> => {
  const { via, "token-env": tokenEnv } = ctx.invocation.values as { via?: string; "token-env"?: string }
  if (via === undefined) throw new UsageError("--via needs the gateway's URL")
  let url: URL
  try {
    url = new URL(via)
  } catch {
    throw new UsageError(
      `--via must be the gateway's http(s) URL, e.g. http://127.0.0.1:8808/mcp; got "${via}"`,
    )
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--via must be an http(s) URL, got "${via}"`)
  const headers: Record<string, string> = {}
  if (tokenEnv !== undefined) {
    const token = ctx.io.env[tokenEnv]
    if (token === undefined || token === "")
      throw new UsageError(`--token-env ${tokenEnv}: the variable is not set`)
    headers.authorization = `Bearer ${token}`
  }
  const { canonicalIdOf, mcpBackend } = await import("@toolplane/plugin-mcp")
  const backend = mcpBackend({ name: REMOTE, http: { url: url.href, headers } }, { requiresApproval: false })
  await backend.connect()
  /** The gateway's id of an MCP name: `ns.name` and `ns/name` map back; a bare name stays as it is. */
  const idOf = (mcpName: string): string => canonicalIdOf(mcpName, "dotted") ?? mcpName
  const listing = async (): Promise<Tool[]> =>
    (await backend.toolSchemas()).map((tool) => {
      const mcpName = ((tool.metadata?.mcp as { name?: string } | undefined)?.name ?? tool.name) as string
      const id = idOf(mcpName)
      const slash = id.indexOf("/")
      return {
        ...tool,
        id,
        namespace: slash < 0 ? "" : id.slice(0, slash),
        name: slash < 0 ? id : id.slice(slash + 1),
        metadata: { ...tool.metadata, via: { mcpName } },
      }
    })
  const service: ToolService = {
    listTools: async () => ({ tools: await listing() }),
    callTool: async (request: CallToolRequest): Promise<ToolResult> => {
      const tools = await listing()
      const tool = tools.find((t) => t.id === request.name) ?? tools.find((t) => t.name === request.name)
      const mcpName = (tool?.metadata?.via as { mcpName: string } | undefined)?.mcpName ?? request.name
      const original = (await backend.toolSchemas()).find(
        (t) => ((t.metadata?.mcp as { name?: string } | undefined)?.name ?? t.name) === mcpName,
      )
      const result = await backend.execute(
        { toolId: original?.id ?? `${REMOTE}/${mcpName}`, arguments: request.arguments ?? {} },
        makeContext(),
      )
      return result as ToolResult
    },
  }
  return { service, close: () => backend.close() }
}
