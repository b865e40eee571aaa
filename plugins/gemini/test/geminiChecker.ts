/**
 * An independent checker of Gemini's documented rules for function declarations, written from the API
 * reference (`FunctionDeclaration`: name starts with a letter or `_`, then letters, digits, `_`, `-`,
 * at most 64; `Schema`: the fields of the "select subset of OpenAPI 3.0", upper-case `Type` values,
 * string enums, the documented formats per type, int64 counts; parameter names: letters, digits and `_`,
 * starting with a letter or `_`, at most 64) and the API's known rejection of an `OBJECT` without
 * properties. It shares no code with src/, so a bug there cannot hide itself here.
 */
const NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/
const PROPERTY = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/
const FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "anyOf",
  "default",
  "example",
  "propertyOrdering",
])
const TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"])
const FORMATS: Record<string, string[]> = {
  NUMBER: ["float", "double"],
  INTEGER: ["int32", "int64"],
  STRING: ["enum", "date-time"],
}
const INT64 = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]

type Node = Record<string, unknown>
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

/** Problems of one schema node (recursively); `[]` when it is fine. */
export const schemaViolations = (schema: unknown, at = "#"): string[] => {
  const problems: string[] = []
  if (!isNode(schema)) return [`${at}: not a schema object`]
  for (const k of Object.keys(schema))
    if (!FIELDS.has(k)) problems.push(`${at}: field "${k}" is not part of Schema`)
  const type = schema.type
  if (type === undefined && !Array.isArray(schema.anyOf)) problems.push(`${at}: no type`)
  if (type !== undefined && !TYPES.has(type as string)) problems.push(`${at}: type ${JSON.stringify(type)}`)
  if (schema.format !== undefined && !(FORMATS[type as string] ?? []).includes(schema.format as string))
    problems.push(`${at}: format "${String(schema.format)}" for ${String(type)}`)
  if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum) || schema.enum.some((v) => typeof v !== "string"))
      problems.push(`${at}: enum values must be strings`)
    if (type !== "STRING") problems.push(`${at}: enum on ${String(type)}`)
  }
  for (const k of INT64)
    if (schema[k] !== undefined && !(typeof schema[k] === "string" && /^\d+$/.test(schema[k] as string)))
      problems.push(`${at}: ${k} must be an int64 string`)
  for (const k of ["minimum", "maximum"])
    if (schema[k] !== undefined && typeof schema[k] !== "number") problems.push(`${at}: ${k}`)
  if (schema.nullable !== undefined && typeof schema.nullable !== "boolean") problems.push(`${at}: nullable`)
  for (const k of ["title", "description", "pattern"])
    if (schema[k] !== undefined && typeof schema[k] !== "string") problems.push(`${at}: ${k} is not a string`)
  if (type === "OBJECT") {
    if (!isNode(schema.properties) || Object.keys(schema.properties).length === 0)
      problems.push(`${at}: OBJECT without properties`)
    else
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (!PROPERTY.test(name)) problems.push(`${at}: property name "${name}"`)
        problems.push(...schemaViolations(sub, `${at}/properties/${name}`))
      }
    if (schema.required !== undefined) {
      if (!Array.isArray(schema.required)) problems.push(`${at}: required is not a list`)
      else
        for (const r of schema.required)
          if (!isNode(schema.properties) || !(r in schema.properties))
            problems.push(`${at}: required "${String(r)}" is not a property`)
    }
  } else if (schema.properties !== undefined || schema.required !== undefined)
    problems.push(`${at}: properties on ${String(type)}`)
  if (type === "ARRAY") {
    if (!isNode(schema.items)) problems.push(`${at}: ARRAY without items`)
    else problems.push(...schemaViolations(schema.items, `${at}/items`))
  } else if (schema.items !== undefined) problems.push(`${at}: items on ${String(type)}`)
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf) || schema.anyOf.length === 0) problems.push(`${at}: empty anyOf`)
    else
      for (const [i, b] of schema.anyOf.entries()) problems.push(...schemaViolations(b, `${at}/anyOf/${i}`))
  }
  return problems
}

/** Problems of one exported declaration; `[]` when it is fine. */
export const declarationViolations = (declaration: unknown): string[] => {
  if (!isNode(declaration)) return ["not an object"]
  const problems: string[] = []
  for (const k of Object.keys(declaration))
    if (!["name", "description", "parameters"].includes(k)) problems.push(`field "${k}"`)
  if (typeof declaration.name !== "string" || !NAME.test(declaration.name))
    problems.push(`name ${JSON.stringify(declaration.name)} is invalid`)
  if (declaration.description !== undefined && typeof declaration.description !== "string")
    problems.push("description is not a string")
  if (declaration.parameters !== undefined) {
    const p = declaration.parameters
    if (!isNode(p) || p.type !== "OBJECT") problems.push("parameters must be an OBJECT schema")
    problems.push(...schemaViolations(p, "#"))
  }
  return problems
}
