/**
 * A tool service over `defineTool` definitions, built from foundation alone: the stand-in for a runner in
 * tests of middleware, adapters and protocol servers (which may not depend on `@toolplane/exec`).
 *
 * @since 0.1.0
 */
import { type CursorCodec, makeCursorCodec } from "../cursor.js"
import type { ToolDefinition } from "../defineTool.js"
import { toolOf } from "../defineTool.js"
import { byId, type Tool } from "../tool.js"
import { ToolNotFound } from "../toolError.js"
import { suggestToolIds } from "../toolId.js"
import type { ToolResult } from "../toolResult.js"
import { type CallToolRequest, paginateTools, type ToolService } from "../toolService.js"

/**
 * A {@link ToolService} over definitions, which records the calls it receives and can change its tools.
 *
 * @since 0.1.0
 */
export interface DefinitionService extends ToolService {
  /** Every call that reached the service, in order. */
  readonly calls: CallToolRequest[]
  /** Adds or replaces a tool. */
  add(definition: ToolDefinition<any>): void
  /** Removes a tool; returns whether it was served. */
  remove(toolId: string): boolean
}

/**
 * Options of {@link definitionService}.
 *
 * @since 0.1.0
 */
export interface DefinitionServiceOptions {
  /** Tools per listing page. Default 50. */
  readonly pageSize?: number
  /** Listing cursor codec. Default: a fixed test key. */
  readonly codec?: CursorCodec
}

const TEST_CODEC = makeCursorCodec({ keys: [{ kid: "test", secret: "toolplane-definition-service-key" }] })

/**
 * Serves `definitions`: sorted, paginated listing with signed cursors; calls validated and run by each
 * definition's `invoke`; an unknown id is `ToolNotFound` with suggestions.
 *
 * @since 0.1.0
 */
export const definitionService = (
  definitions: readonly ToolDefinition<any>[],
  options: DefinitionServiceOptions = {},
): DefinitionService => {
  const byName = new Map(definitions.map((d) => [d.id, d]))
  const codec = options.codec ?? TEST_CODEC
  const pageSize = options.pageSize ?? 50
  let sorted: Tool[] | undefined
  const calls: CallToolRequest[] = []
  return {
    calls,
    add(definition) {
      byName.set(definition.id, definition)
      sorted = undefined
    },
    remove(toolId) {
      sorted = undefined
      return byName.delete(toolId)
    },
    listTools: async (request = {}) => {
      sorted ??= [...byName.values()].map(toolOf).sort(byId)
      return paginateTools(sorted, { codec, pageSize, cursor: request.cursor })
    },
    callTool: async (request): Promise<ToolResult> => {
      calls.push(request)
      const definition = byName.get(request.name)
      if (!definition)
        throw new ToolNotFound({
          toolId: request.name,
          suggestions: suggestToolIds(request.name, byName.keys()),
        })
      const { continuation: _continuation, ...result } = await definition.invoke(
        request.arguments ?? {},
        request.context,
      )
      return result
    },
  }
}
