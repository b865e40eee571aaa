/**
 * Compact TypeScript declarations of a toolset for a model's prompt: one `declare const tools` with a
 * namespace object per tool namespace and one method per tool (argument and result types from the JSON
 * Schemas, a one-line doc), under a size cap; past the cap, the namespaces and `tools.$search`.
 *
 * @since 0.1.0
 */
import type { JsonSchema, Tool, ToolsetDeclaration } from "@toolplane/foundation"

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A property or member name as written in TypeScript (quoted when not an identifier). */
export const memberName = (name: string): string => (IDENT.test(name) ? name : JSON.stringify(name))

/** How a program calls the tool: `tools.github.search_issues` or `tools["my-ns"]["get-x"]`. */
export const callPath = (tool: Pick<Tool, "namespace" | "name">): string =>
  `tools${IDENT.test(tool.namespace) ? `.${tool.namespace}` : `[${JSON.stringify(tool.namespace)}]`}${
    IDENT.test(tool.name) ? `.${tool.name}` : `[${JSON.stringify(tool.name)}]`
  }`

type Schema = Readonly<Record<string, unknown>>

const MAX_DEPTH = 4
const MAX_PROPS = 24
const MAX_UNION = 8

/** Whether a type has a `|`, `&` or `=>` outside brackets (then `T[]` would bind wrongly). */
const topLevelOperator = (type: string): boolean => {
  let depth = 0
  for (let i = 0; i < type.length; i++) {
    const c = type[i]
    if (c === "{" || c === "[" || c === "(" || c === "<") depth++
    else if (c === "}" || c === "]" || c === ")" || (c === ">" && type[i - 1] !== "=")) depth--
    else if (depth === 0 && (c === "|" || c === "&" || (c === "=" && type[i + 1] === ">"))) return true
  }
  return false
}

const literal = (v: unknown): string =>
  typeof v === "string" ? JSON.stringify(v) : String(JSON.stringify(v))

const resolveRef = (schema: Schema, root: Schema): Schema | undefined => {
  const ref = schema.$ref
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const part of ref.slice(2).split("/")) {
    if (typeof node !== "object" || node === null) return undefined
    node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")]
  }
  return typeof node === "object" && node !== null ? (node as Schema) : undefined
}

/**
 * The TypeScript type of a JSON Schema, compact: nested objects beyond a few levels, huge unions and
 * unknown keywords become `any`-free fallbacks (`object`, `unknown`).
 */
export const schemaType = (schema: unknown, root: Schema = schema as Schema, depth = 0, seen = 0): string => {
  if (schema === true || schema === undefined) return "unknown"
  if (schema === false) return "never"
  if (typeof schema !== "object" || schema === null) return "unknown"
  const s = schema as Schema
  if (seen > 16) return "unknown"
  const ref = resolveRef(s, root)
  if (ref) return schemaType(ref, root, depth, seen + 1)
  if ("const" in s) return literal(s.const)
  if (Array.isArray(s.enum))
    return s.enum.length > MAX_UNION
      ? `${s.enum.slice(0, MAX_UNION).map(literal).join(" | ")} | ...`
      : s.enum.map(literal).join(" | ")
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key]
    if (Array.isArray(options) && options.length > 0) {
      const parts = [...new Set(options.slice(0, MAX_UNION).map((o) => schemaType(o, root, depth, seen + 1)))]
      return parts.length === 1 ? parts[0]! : parts.map((p) => (p.includes("=>") ? `(${p})` : p)).join(" | ")
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0)
    return s.allOf.map((o) => schemaType(o, root, depth, seen + 1)).join(" & ")
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type !== undefined ? [s.type] : []
  if (types.length > 1)
    return types.map((t) => schemaType({ ...s, type: t }, root, depth, seen + 1)).join(" | ")
  const type = types[0] ?? (s.properties ? "object" : s.items ? "array" : undefined)
  switch (type) {
    case "string":
      return "string"
    case "number":
    case "integer":
      return "number"
    case "boolean":
      return "boolean"
    case "null":
      return "null"
    case "array": {
      if (Array.isArray(s.prefixItems))
        return `[${s.prefixItems.map((i) => schemaType(i, root, depth + 1, seen + 1)).join(", ")}]`
      const item = schemaType(s.items, root, depth + 1, seen + 1)
      return topLevelOperator(item) ? `Array<${item}>` : `${item}[]`
    }
    case "object": {
      if (depth >= MAX_DEPTH) return "object"
      const props = (s.properties ?? {}) as Record<string, unknown>
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
      const names = Object.keys(props)
      const fields = names.slice(0, MAX_PROPS).map((name) => {
        const optional = required.has(name) ? "" : "?"
        return `${memberName(name)}${optional}: ${schemaType(props[name], root, depth + 1, seen + 1)}`
      })
      if (names.length > MAX_PROPS) fields.push("[more: string]: unknown")
      const extra = s.additionalProperties
      if (names.length === 0)
        return typeof extra === "object" && extra !== null
          ? `Record<string, ${schemaType(extra, root, depth + 1, seen + 1)}>`
          : "{}"
      return `{ ${fields.join("; ")} }`
    }
    default:
      return "unknown"
  }
}

const oneLine = (description: string | undefined, max = 120): string => {
  if (!description) return ""
  const flat = description.replace(/\s+/g, " ").trim()
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence
}

/** The doc tag marking a tool whose calls wait for approval (explained in the declaration's header). */
const APPROVAL_TAG = "@needsApproval"

/**
 * One tool's method declaration: `/** doc *\/ name(args: {...}): Promise<...>`. Without an output
 * schema a call resolves to the tool's text. `needsApproval` adds the `@needsApproval` doc tag.
 *
 * @since 0.1.0
 */
export const toolDeclaration = (tool: Tool, options: { readonly needsApproval?: boolean } = {}): string => {
  const args = schemaType(tool.inputSchema as JsonSchema as Schema)
  const props = (tool.inputSchema as Schema).properties as Record<string, unknown> | undefined
  const required = (tool.inputSchema as Schema).required
  const optionalArgs =
    !props || Object.keys(props).length === 0 || !Array.isArray(required) || required.length === 0
  const result = tool.outputSchema ? schemaType(tool.outputSchema as Schema) : "string"
  const text = oneLine(tool.description ?? tool.title).replace(/\*\//g, "* /")
  const doc = options.needsApproval ? (text ? `${text} ${APPROVAL_TAG}` : APPROVAL_TAG) : text
  return `${doc ? `/** ${doc} */ ` : ""}${memberName(tool.name)}(args${optionalArgs ? "?" : ""}: ${args}): Promise<${result}>`
}

const HEADER = [
  "// Call tools from your program: `const r = await tools.<namespace>.<tool>(args)`.",
  '// A failed call throws an Error with `code` (e.g. "INVALID_ARGUMENTS", "APPROVAL_DENIED") and `message`; catch it to recover.',
  "// Tools without an output type resolve to their text output. Return a JSON value; console.log output comes back too.",
]
const APPROVAL_LINE = `// A call of a tool marked ${APPROVAL_TAG} waits for a person's approval; a refusal throws code "APPROVAL_DENIED".`

/**
 * Options of {@link declareToolset}.
 *
 * @since 0.1.0
 */
export interface DeclareOptions {
  /** Size cap of the declaration, in characters. Default 16 000. */
  readonly maxChars?: number
  /** Which tools need approval: their declarations get the `@needsApproval` doc tag. Default: none marked. */
  readonly needsApproval?: (tool: Tool) => boolean
}

const SEARCH_DECL =
  "  /** Finds tools by what they do: returns [{ id, call, declaration }], best first. */ $search(query: string, limit?: number): Promise<{ id: string; call: string; declaration: string }[]>"

/**
 * Declares `tools` (sorted by id) within `maxChars`. When the whole toolset does not fit, lists the
 * namespaces with their tool counts and declares `tools.$search` to find the rest (`complete: false`;
 * this fallback is about 800 characters and is not cut further).
 *
 * @since 0.1.0
 */
export const declareToolset = (tools: readonly Tool[], options: DeclareOptions = {}): ToolsetDeclaration => {
  const maxChars = options.maxChars ?? 16_000
  const byNamespace = new Map<string, Tool[]>()
  for (const tool of [...tools].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const list = byNamespace.get(tool.namespace) ?? []
    list.push(tool)
    byNamespace.set(tool.namespace, list)
  }
  const needsApproval = options.needsApproval ?? (() => false)
  const body: string[] = []
  let marked = false
  for (const [namespace, members] of byNamespace) {
    body.push(`  ${memberName(namespace)}: {`)
    for (const tool of members) {
      const approval = needsApproval(tool)
      marked ||= approval
      body.push(`    ${toolDeclaration(tool, { needsApproval: approval })}`)
    }
    body.push("  }")
  }
  const lines = [...HEADER, ...(marked ? [APPROVAL_LINE] : []), "declare const tools: {", ...body]
  lines.push(SEARCH_DECL, "}")
  const full = lines.join("\n")
  if (full.length <= maxChars)
    return { text: full, complete: true, listed: tools.length, total: tools.length }
  let namespaces = [...byNamespace].map(([ns, members]) => `${ns} (${members.length})`).join(", ")
  if (namespaces.length > maxChars / 2) namespaces = `${byNamespace.size} namespaces`
  const text = [
    ...HEADER,
    ...(marked ? [APPROVAL_LINE] : []),
    `// ${tools.length} tools, too many to list. Namespaces: ${namespaces}.`,
    '// Find the tools you need first: `const found = await tools.$search("create a github issue")`, then call them by `found[i].call`\'s path.',
    "declare const tools: {",
    "  [namespace: string]: { [tool: string]: (args?: object) => Promise<unknown> }",
    SEARCH_DECL,
    "}",
  ].join("\n")
  // The fallback is the minimum a program needs; it is never cut.
  return { text, complete: false, listed: 0, total: tools.length }
}
