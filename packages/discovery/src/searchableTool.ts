/**
 * The structural shape of a tool that discovery indexes. Any `@toolplane/foundation` `Tool`
 * is assignable to it.
 *
 * @since 0.1.0
 */
export interface SearchableTool {
  /** Unique id, conventionally `"namespace/name"`. */
  readonly id: string
  readonly namespace: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  /** JSON Schema object describing the input. */
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** Optional JSON Schema of the output (MCP `outputSchema`); its property names are indexed. */
  readonly outputSchema?: Readonly<Record<string, unknown>>
  readonly tags?: readonly string[]
  readonly category?: string
  /** Intent examples: example queries (authored, or from a deployment's query log). */
  readonly intents?: readonly string[]
  readonly metadata?: Readonly<Record<string, unknown>>
}

/**
 * Names of the fields a tool is indexed under (BM25F fields).
 *
 * @since 0.1.0
 */
export type FieldName =
  | "name"
  | "namespace"
  | "title"
  | "description"
  | "paramNames"
  | "paramDescriptions"
  | "tags"
  | "category"
  | "output"
  | "intents"

/**
 * All BM25F fields, in engine order.
 *
 * @since 0.1.0
 */
export const FIELD_NAMES: readonly FieldName[] = [
  "name",
  "namespace",
  "title",
  "description",
  "paramNames",
  "paramDescriptions",
  "tags",
  "category",
  "output",
  "intents",
]
