/**
 * `toolplane call TOOL_ID --args JSON`: calls one tool through the whole gateway stack.
 * Exit 0 on success, 1 when the tool reports an error (an `isError` result or a failure while running),
 * 2 when the call itself is wrong (bad JSON, unknown tool, arguments rejected by the schema).
 *
 * @since 0.1.0
 */
import {
  BackendUnavailable,
  type ContentBlock,
  InvalidArguments,
  isToolError,
  ToolNotFound,
  toolErrorToJson,
} from "@toolplane/foundation"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { json } from "../output.js"
import { withGateway } from "./shared.js"
import { VIA_FLAGS, VIA_HELP } from "./via.js"

const parseArgsJson = (text: string | undefined): Record<string, unknown> => {
  if (text === undefined) return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError('--args must be a JSON object, e.g. --args \'{"city":"Oslo"}\'')
  return value as Record<string, unknown>
}

const renderBlock = (block: ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`
    case "resource":
      return block.resource.text ?? `[resource ${block.resource.uri}]`
    case "resource_link":
      return `[link ${block.name}: ${block.uri}]`
  }
}

/** @since 0.1.0 */
export const callCommand = defineCommand({
  name: "call",
  synopsis: "TOOL_ID",
  summary: "call a tool [--args JSON] [--json]",
  maxPositionals: 1,
  flags: { json: "boolean", args: "string", ...VIA_FLAGS },
  // With --via the configuration file is not needed.
  configOptional: true,
  flagHelp: {
    args: "JSON  the arguments, a JSON object (default {})",
    json: "print the whole result as JSON",
    ...VIA_HELP,
  },
  examples: [
    `call math/add --args '{"a":2,"b":3}'`,
    'call everything/echo --args \'{"message":"hi"}\' --json',
    'call notes/echo -c ./gateway.toml --args \'{"message":"hi"}\'',
  ],
  run: async (ctx) => {
    const [toolId, ...extra] = ctx.invocation.positionals
    if (toolId === undefined) throw new UsageError("call needs a TOOL_ID")
    if (extra.length > 0)
      throw new UsageError(`unexpected argument "${extra[0]}" (pass arguments with --args JSON)`)
    const args = parseArgsJson(ctx.invocation.values.args)
    return withGateway(ctx, async (gateway, down) => {
      const namespace = toolId.slice(0, toolId.indexOf("/"))
      if (down.has(namespace)) {
        // Not "unknown tool": its backend is down, which is a failure of the backend, not of the caller.
        const error = new BackendUnavailable({ backend: namespace, reason: down.get(namespace)! })
        if (ctx.invocation.values.json) ctx.io.stdout(json({ error: toolErrorToJson(error) }))
        ctx.io.stderr(`toolplane: ${error._tag}: ${error.message}\n`)
        return EXIT.toolError
      }
      try {
        const result = await gateway.service.callTool({ name: toolId, arguments: args })
        if (ctx.invocation.values.json) ctx.io.stdout(json(result))
        else {
          const text = result.content.map(renderBlock).join("\n")
          ctx.io.stdout(`${text}${text.endsWith("\n") || text === "" ? "" : "\n"}`)
        }
        return result.isError ? EXIT.toolError : EXIT.ok
      } catch (error) {
        if (!isToolError(error)) throw error
        if (ctx.invocation.values.json) ctx.io.stdout(json({ error: toolErrorToJson(error) }))
        ctx.io.stderr(`toolplane: ${error._tag}: ${error.message}\n`)
        if (error._tag === "ApprovalRequired")
          ctx.io.stderr(
            "toolplane: a gateway has no one to ask; set require_approval = false on the backend serving this tool to allow it\n",
          )
        return error instanceof ToolNotFound || error instanceof InvalidArguments
          ? EXIT.usage
          : EXIT.toolError
      }
    })
  },
})
