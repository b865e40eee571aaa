/**
 * What every function-calling API reads of a tool when nothing provider-specific applies: its
 * description and its parameters schema as plain (non-strict) JSON Schema. Shared by the OpenAI export
 * and the plugins that reuse it (AI SDK, LangChain).
 *
 * @since 0.2.0
 */
import type { JsonSchema, Tool } from "@toolplane/foundation"

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The text a model reads about a tool: its description, else its title, else `undefined`. `null` or
 * empty fields (as some servers send them) count as absent.
 *
 * @since 0.2.0
 */
export const toolDescription = (tool: Tool): string | undefined =>
  typeof tool.description === "string" && tool.description !== ""
    ? tool.description
    : typeof tool.title === "string" && tool.title !== ""
      ? tool.title
      : undefined

/**
 * A tool's input schema as non-strict function parameters: without `$schema` (providers reject some
 * dialect URIs) and with `type: "object"` at a root that has none. Throws a `TypeError` for a schema that
 * is not an object (callers leave such a tool out with a warning).
 *
 * @since 0.2.0
 */
export const looseParameters = (schema: JsonSchema): { [key: string]: unknown } => {
  if (!isRecord(schema)) throw new TypeError("the input schema is not an object")
  const { $schema: _s, ...rest } = schema
  return rest.type === undefined && rest.$ref === undefined ? { type: "object", ...rest } : { ...rest }
}
