/**
 * An independent checker of Anthropic's documented rules for tool definitions, written from the docs
 * (tool use: name `^[a-zA-Z0-9_-]{1,64}$`, `input_schema` a JSON Schema 2020-12 object schema; strict
 * tool use: the JSON Schema limitations of structured outputs). It shares no code with src/, so a bug
 * there cannot hide itself here.
 */
import { Ajv2020 } from "ajv/dist/2020.js"

const NAME = /^[a-zA-Z0-9_-]{1,64}$/

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })

type Node = Record<string, unknown>
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

/** Problems of one exported tool, as readable strings; `[]` when it is fine. */
export const toolViolations = (tool: unknown): string[] => {
  const problems: string[] = []
  if (!isNode(tool)) return ["not an object"]
  if (typeof tool.name !== "string" || !NAME.test(tool.name))
    problems.push(`name ${JSON.stringify(tool.name)} is invalid`)
  if ("description" in tool && typeof tool.description !== "string")
    problems.push("description is not a string")
  const schema = tool.input_schema
  if (!isNode(schema)) return [...problems, "input_schema is not an object"]
  if (schema.type !== "object")
    problems.push(`input_schema.type is ${JSON.stringify(schema.type)}, not "object"`)
  if (!ajv.validateSchema(schema))
    problems.push(`input_schema is not valid JSON Schema 2020-12: ${ajv.errorsText(ajv.errors)}`)
  const nulls: string[] = []
  const findNulls = (n: unknown, at: string) => {
    if (Array.isArray(n)) for (const [i, x] of n.entries()) findNulls(x, `${at}/${i}`)
    else if (isNode(n))
      for (const [k, v] of Object.entries(n)) {
        if (v === null && k !== "const" && k !== "default" && !at.endsWith("/enum")) nulls.push(`${at}/${k}`)
        if (k !== "enum" && k !== "const" && k !== "default" && k !== "examples") findNulls(v, `${at}/${k}`)
      }
  }
  findNulls(schema, "#")
  for (const n of nulls) problems.push(`${n} is null`)
  if ("strict" in tool && typeof tool.strict !== "boolean") problems.push("strict is not a boolean")
  if (tool.strict === true) problems.push(...strictViolations(schema))
  return problems
}

const STRICT_KEYS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "allOf",
  "enum",
  "const",
  "default",
  "description",
  "title",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "format",
  "minItems",
])
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "uri",
  "ipv4",
  "ipv6",
  "uuid",
])

/** Problems of a strict input schema under the documented limitations; `[]` when it is fine. */
export const strictViolations = (root: unknown): string[] => {
  const problems: string[] = []
  const deref = (ref: string): unknown => {
    let n: unknown = root
    for (const seg of ref.replace(/^#\/?/, "").split("/").filter(Boolean))
      n = isNode(n) ? n[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined
    return n
  }
  const walk = (n: unknown, at: string, refs: readonly string[]) => {
    if (typeof n === "boolean") return
    if (!isNode(n)) {
      problems.push(`${at}: not a schema`)
      return
    }
    for (const k of Object.keys(n))
      if (!STRICT_KEYS.has(k)) problems.push(`${at}: keyword "${k}" is not supported`)
    const types = typeof n.type === "string" ? [n.type] : Array.isArray(n.type) ? n.type : []
    for (const t of types) if (!TYPES.has(t as string)) problems.push(`${at}: type ${JSON.stringify(t)}`)
    const isObject = types.includes("object") || isNode(n.properties)
    if (isObject && n.additionalProperties !== false)
      problems.push(`${at}: additionalProperties must be false`)
    if (n.format !== undefined && !FORMATS.has(n.format as string))
      problems.push(`${at}: format "${String(n.format)}"`)
    if (n.minItems !== undefined && n.minItems !== 0 && n.minItems !== 1)
      problems.push(`${at}: minItems ${String(n.minItems)}`)
    if (Array.isArray(n.enum) && n.enum.some((v) => typeof v === "object" && v !== null))
      problems.push(`${at}: complex enum value`)
    if (typeof n.pattern === "string" && /\\[1-9]|\(\?[=!<]|\\b/.test(n.pattern))
      problems.push(`${at}: unsupported regex feature`)
    if (Array.isArray(n.items)) problems.push(`${at}: tuple items`)
    if (Array.isArray(n.required) && isNode(n.properties))
      for (const r of n.required)
        if (!(r in n.properties)) problems.push(`${at}: required "${String(r)}" has no schema`)
    if (typeof n.$ref === "string") {
      if (!n.$ref.startsWith("#")) problems.push(`${at}: external $ref`)
      else if (refs.includes(n.$ref)) problems.push(`${at}: recursive $ref ${n.$ref}`)
      else {
        const target = deref(n.$ref)
        if (target === undefined) problems.push(`${at}: $ref ${n.$ref} does not resolve`)
        else walk(target, n.$ref, [...refs, n.$ref])
      }
    }
    if (isNode(n.properties))
      for (const [k, v] of Object.entries(n.properties)) walk(v, `${at}/properties/${k}`, refs)
    if (n.items !== undefined && !Array.isArray(n.items)) walk(n.items, `${at}/items`, refs)
    for (const key of ["anyOf", "allOf"])
      if (Array.isArray(n[key]))
        for (const [i, b] of (n[key] as unknown[]).entries()) walk(b, `${at}/${key}/${i}`, refs)
    for (const key of ["$defs", "definitions"])
      if (isNode(n[key]))
        for (const [k, v] of Object.entries(n[key] as Node))
          walk(v, `${at}/${key}/${k}`, [...refs, `#/${key}/${k}`])
  }
  walk(root, "#", ["#"])
  return problems
}
