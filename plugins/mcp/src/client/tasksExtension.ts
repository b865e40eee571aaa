/**
 * Negotiation of the MCP tasks extension (`io.modelcontextprotocol/tasks`): whether a modern server
 * advertises it, and the client capabilities that declare it (see `upstreamTasks.ts`).
 *
 * @since 0.2.0
 */
import type { ClientCapabilities } from "@modelcontextprotocol/server"

/**
 * The extension's identifier, in `capabilities.extensions` of `server/discover` and of the client's
 * per-request capabilities.
 *
 * @since 0.2.0
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a `server/discover` capabilities object advertises the tasks extension.
 *
 * @internal
 * @since 0.2.0
 */
export const advertisesTasks = (capabilities: unknown): boolean => {
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION])
}

/**
 * `capabilities` with the tasks extension declared.
 *
 * @internal
 * @since 0.2.0
 */
export const withTasksCapability = (capabilities: ClientCapabilities): ClientCapabilities => {
  const extensions = (capabilities as { extensions?: Json }).extensions
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } as ClientCapabilities
}
