/**
 * JSON Schema as Toolplane carries it (2020-12 by default, draft-07 accepted), the schema sources a user
 * may author (zod 4, any Standard Schema that can emit JSON Schema, or raw JSON Schema), and a walker
 * that lists the schema features a protocol adapter may not support.
 *
 * @since 0.1.0
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec"
import { escapeJsonPointer } from "./jsonPointer.js"
import { InvalidTool } from "./toolError.js"

/**
 * A JSON value.
 *
 * @since 0.1.0
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [k: string]: JsonValue }

/**
 * A JSON Schema object (2020-12 or draft-07). Kept structural so any schema object fits.
 *
 * @since 0.1.0
 */
export interface JsonSchema {
  readonly $schema?: string
  readonly type?: string | readonly string[]
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
  readonly description?: string
  readonly [keyword: string]: unknown
}

/** @since 0.1.0 */
export const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
/** @since 0.1.0 */
export const JSON_SCHEMA_DRAFT_07 = "http://json-schema.org/draft-07/schema#"

/**
 * What a user may pass wherever Toolplane takes a schema.
 *
 * @since 0.1.0
 */
export type SchemaSource = StandardSchemaV1 | StandardJSONSchemaV1 | JsonSchema

/**
 * The value type a schema source produces after validation: the output type of a Standard Schema, or
 * `Record<string, unknown>` for raw JSON Schema.
 *
 * @since 0.1.0
 */
export type InferSchema<S> =
  S extends StandardSchemaV1<any, infer O>
    ? O
    : S extends StandardJSONSchemaV1<any, infer O>
      ? O
      : Record<string, unknown>

/**
 * Tells whether a value is a Standard Schema (zod 4, valibot, arktype, effect/schema ...).
 *
 * @since 0.1.0
 */
export const isStandardSchema = (value: unknown): value is StandardSchemaV1 =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  "~standard" in value &&
  typeof (value as StandardSchemaV1)["~standard"]?.validate === "function"

const hasJsonSchemaConverter = (value: unknown): value is StandardJSONSchemaV1 =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  "~standard" in value &&
  typeof (value as StandardJSONSchemaV1)["~standard"]?.jsonSchema?.input === "function"

/**
 * Produces the JSON Schema (2020-12) for a schema source. `which` picks the input or output side of a
 * transforming schema.
 *
 * @since 0.1.0
 */
export const toJsonSchema = (
  source: SchemaSource,
  which: "input" | "output" = "input",
  toolId = "",
): JsonSchema => {
  if (hasJsonSchemaConverter(source)) {
    let schema: Record<string, unknown>
    try {
      schema = source["~standard"].jsonSchema[which]({ target: "draft-2020-12" }) as Record<string, unknown>
    } catch (cause) {
      throw new InvalidTool({
        toolId,
        path: which === "input" ? "input" : "output",
        reason: `the schema cannot be converted to JSON Schema: ${(cause as Error)?.message ?? String(cause)}`,
      })
    }
    const { $schema, ...rest } = schema
    return ($schema === JSON_SCHEMA_2020_12 ? rest : schema) as JsonSchema
  }
  if (isStandardSchema(source)) {
    throw new InvalidTool({
      toolId,
      path: which === "input" ? "input" : "output",
      reason: `the ${source["~standard"].vendor} schema cannot produce JSON Schema (it does not implement Standard JSON Schema); pass a JSON Schema object instead`,
    })
  }
  if (typeof source !== "object" || source === null || Array.isArray(source)) {
    throw new InvalidTool({
      toolId,
      path: which === "input" ? "input" : "output",
      reason: "expected a zod schema, a Standard Schema or a JSON Schema object",
    })
  }
  return source as JsonSchema
}

/**
 * A schema feature found by {@link schemaFeatures}, with the JSON pointer where it occurs.
 *
 * @since 0.1.0
 */
export interface SchemaFeatureUse {
  /** e.g. `"$ref"`, `"oneOf"`, `"format:uri"`, `"pattern"`, `"patternProperties"`, `"if"`. */
  readonly feature: string
  /** JSON pointer into the schema. */
  readonly path: string
}

const FEATURE_KEYWORDS = new Set([
  "$ref",
  "$defs",
  "definitions",
  "$dynamicRef",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependentRequired",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "prefixItems",
  "contains",
  "minContains",
  "maxContains",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "const",
  "enum",
  "default",
  "examples",
  "additionalProperties",
  "contentEncoding",
  "contentMediaType",
])

const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
const SUBSCHEMA_ARRAYS = ["oneOf", "anyOf", "allOf", "prefixItems"]
const SUBSCHEMA_SINGLE = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]

/**
 * Walks a schema, nested schemas included, and lists every feature keyword in use (formats as
 * `format:NAME`). Adapters compare this list with what their protocol supports to emit feature-loss
 * warnings.
 *
 * @since 0.1.0
 */
export const schemaFeatures = (schema: unknown): SchemaFeatureUse[] => {
  const out: SchemaFeatureUse[] = []
  const visit = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return
    const record = node as Record<string, unknown>
    for (const key of Object.keys(record)) {
      if (FEATURE_KEYWORDS.has(key)) {
        if (key === "additionalProperties" && typeof record[key] === "boolean") continue
        out.push({ feature: key, path: `${path}/${escapeJsonPointer(key)}` })
      } else if (key === "format" && typeof record[key] === "string") {
        out.push({ feature: `format:${record[key]}`, path: `${path}/format` })
      }
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = record[key]
      if (typeof map === "object" && map !== null) {
        for (const [name, sub] of Object.entries(map)) visit(sub, `${path}/${key}/${escapeJsonPointer(name)}`)
      }
    }
    for (const key of SUBSCHEMA_ARRAYS) {
      const arr = record[key]
      if (Array.isArray(arr)) for (const [i, sub] of arr.entries()) visit(sub, `${path}/${key}/${i}`)
    }
    for (const key of SUBSCHEMA_SINGLE) {
      const sub = record[key]
      if (Array.isArray(sub)) for (const [i, s] of sub.entries()) visit(s, `${path}/${key}/${i}`)
      else visit(sub, `${path}/${key}`)
    }
  }
  visit(schema, "")
  return out
}
