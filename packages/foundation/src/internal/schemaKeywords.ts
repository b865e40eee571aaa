/**
 * Where a JSON Schema (2020-12, with the draft-04/07 spellings) keeps its subschemas, for the walkers that
 * rewrite schemas (`normalizeSchema.ts`, `prototypeNames.ts`).
 */

/** Keywords whose value is one subschema. */
export const SUBSCHEMA_ONE: readonly string[] = [
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
]

/** Keywords whose value is a list of subschemas (besides a draft-04 `items` array). */
export const SUBSCHEMA_LIST: readonly string[] = ["allOf", "anyOf", "oneOf", "prefixItems"]

/** Keywords whose value maps names to subschemas (besides draft-07 `dependencies`, which mixes in lists). */
export const SUBSCHEMA_MAP: readonly string[] = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]
