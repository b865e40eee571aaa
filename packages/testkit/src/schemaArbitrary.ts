/**
 * Random JSON Schemas of the kinds MCP servers publish, including the odd ones: null keywords,
 * draft-04 bounds and tuples, never-matching branches, local and recursive `$ref`s, unions, maps,
 * constraint-only unions, unknown formats and keywords.
 */
import fc from "fast-check"

const name = fc.oneof(
  fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/),
  fc.constantFrom("max-results", "a.b", "1st", "x y"),
)
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined })
const strip = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

const leaf = fc
  .record({
    type: fc.constantFrom(
      "string",
      "number",
      "integer",
      "boolean",
      "null",
      ["string", "null"],
      ["integer", "string"],
    ),
    description: maybe(fc.oneof(fc.string({ maxLength: 10 }), fc.constant(null))),
    minimum: maybe(fc.integer({ min: -5, max: 5 })),
    maximum: maybe(fc.integer({ min: 6, max: 50 })),
    exclusiveMinimum: maybe(fc.oneof(fc.constant(true), fc.integer({ min: -5, max: 5 }))),
    multipleOf: maybe(fc.constantFrom(2, 0.5)),
    minLength: maybe(fc.nat(5)),
    pattern: maybe(fc.constantFrom("^[a-z]+$", "(a)\\1", "^(?!x)")),
    format: maybe(fc.constantFrom("uri", "date-time", "email", "int64", "weird-format")),
    enum: maybe(fc.constantFrom(["a", "b"], [1, 2], ["a", 1, null], [true])),
    const: maybe(fc.constantFrom("fixed", 3, false)),
    default: maybe(fc.constantFrom("d", 1)),
    examples: maybe(fc.constant(["e1", "e2"])),
    deprecated: maybe(fc.boolean()),
  })
  .map(strip)

/**
 * One random schema node (a leaf, `{}`, `true`, a `$ref`, an object, an array or a union).
 *
 * @since 0.1.0
 */
export const schemaArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.constant({}),
    fc.constant(true),
    fc.constantFrom({ $ref: "#/$defs/d0" }, { $ref: "#/$defs/d1" }, { $ref: "#/definitions/old" }),
    tie("object"),
    tie("array"),
    tie("union"),
  ),
  object: fc
    .record({
      type: maybe(fc.constant("object")),
      properties: fc.dictionary(name, tie("node"), { maxKeys: 4 }),
      additionalProperties: maybe(fc.oneof(fc.boolean(), tie("node"))),
      requiredAll: fc.boolean(),
      minProperties: maybe(fc.nat(2)),
    })
    .map(({ requiredAll, ...o }) =>
      strip({ ...o, required: requiredAll ? Object.keys(o.properties as object) : undefined }),
    ),
  array: fc
    .record({
      type: fc.constant("array"),
      items: maybe(fc.oneof(tie("node"), fc.array(tie("node"), { minLength: 1, maxLength: 2 }))),
      prefixItems: maybe(fc.array(tie("node"), { minLength: 1, maxLength: 2 })),
      minItems: maybe(fc.nat(3)),
      maxItems: maybe(fc.integer({ min: 3, max: 9 })),
      uniqueItems: maybe(fc.boolean()),
    })
    .map(strip),
  union: fc
    .record({
      kind: fc.constantFrom("anyOf", "oneOf", "allOf"),
      branches: fc.array(fc.oneof(tie("node"), fc.constant({ not: {} }), fc.constant({ required: ["a"] })), {
        minLength: 1,
        maxLength: 3,
      }),
      description: maybe(fc.string({ maxLength: 6 })),
    })
    .map(({ kind, branches, description }) => strip({ [kind]: branches, description })),
})).node

/**
 * A root input schema: an object with properties and definitions that may refer to each other.
 *
 * @since 0.1.0
 */
export const rootSchemaArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    properties: fc.dictionary(name, schemaArb, { minKeys: 0, maxKeys: 5 }),
    d0: schemaArb,
    d1: schemaArb,
    old: schemaArb,
    requiredAll: fc.boolean(),
    schemaUri: fc.constantFrom(undefined, "http://json-schema.org/draft-07/schema#"),
  })
  .map(({ properties, d0, d1, old, requiredAll, schemaUri }) =>
    strip({
      $schema: schemaUri,
      type: "object",
      properties,
      required: requiredAll ? Object.keys(properties) : undefined,
      $defs: { d0, d1 },
      definitions: { old },
    }),
  )
