/**
 * An independent checker of OpenAI's documented strict-mode rules for function parameters. It shares
 * no code with src/strict.ts, so a bug there cannot hide itself here.
 */
const ALLOWED_KEYS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "title",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
])
const ALLOWED_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
const ALLOWED_FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
])

/** Returns every violation of the strict-mode rules in `root`, as "path: problem". */
export const strictViolations = (root: any): string[] => {
  const problems: string[] = []
  if (root?.type !== "object") problems.push(`root: type must be "object", got ${JSON.stringify(root?.type)}`)
  if (root?.anyOf !== undefined) problems.push("root: anyOf is not allowed at the root")
  let totalProps = 0
  let enumValues = 0
  const check = (node: any, path: string, depth: number) => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      problems.push(`${path}: not a schema object`)
      return
    }
    for (const key of Object.keys(node))
      if (!ALLOWED_KEYS.has(key)) problems.push(`${path}: keyword "${key}" is not supported`)
    if (node.$defs !== undefined && path !== "#") problems.push(`${path}: $defs only at the root`)
    const types: string[] = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type]
    for (const t of types) if (!ALLOWED_TYPES.has(t)) problems.push(`${path}: type "${t}" not supported`)
    if (
      types.length === 0 &&
      node.anyOf === undefined &&
      node.$ref === undefined &&
      node.enum === undefined &&
      !("const" in node)
    )
      problems.push(`${path}: no type, anyOf, $ref, enum or const`)
    if (node.format !== undefined && !ALLOWED_FORMATS.has(node.format))
      problems.push(`${path}: format "${node.format}"`)
    if (node.$ref !== undefined) {
      const m = /^#\/\$defs\/([^/]+)$/.exec(node.$ref)
      if (node.$ref !== "#" && (!m || root.$defs?.[m[1]!] === undefined))
        problems.push(`${path}: $ref ${node.$ref} does not resolve`)
    }
    if (Array.isArray(node.enum)) enumValues += node.enum.length
    if (types.includes("object")) {
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`)
      if (typeof node.properties !== "object" || node.properties === null)
        problems.push(`${path}: object without properties`)
      const keys = Object.keys(node.properties ?? {})
      const required: unknown[] = node.required ?? []
      if (keys.length !== required.length || keys.some((k) => !required.includes(k)))
        problems.push(
          `${path}: required ${JSON.stringify(required)} must list every property ${JSON.stringify(keys)}`,
        )
      if (depth + 1 > 10) problems.push(`${path}: deeper than 10 levels`)
      totalProps += keys.length
      for (const k of keys) check(node.properties[k], `${path}/properties/${k}`, depth + 1)
    } else if (node.properties !== undefined || node.additionalProperties !== undefined) {
      problems.push(`${path}: object keywords on a non-object`)
    }
    if (types.includes("array")) {
      if (node.items === undefined) problems.push(`${path}: array without items`)
      else check(node.items, `${path}/items`, depth)
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
        problems.push(`${path}: anyOf must be a non-empty list`)
      else for (const [i, b] of (node.anyOf as unknown[]).entries()) check(b, `${path}/anyOf/${i}`, depth)
    }
  }
  check(root, "#", 0)
  for (const [name, def] of Object.entries(root?.$defs ?? {})) check(def, `#/$defs/${name}`, 0)
  if (totalProps > 5000) problems.push(`more than 5000 properties`)
  if (enumValues > 1000) problems.push(`more than 1000 enum values`)
  return problems
}
