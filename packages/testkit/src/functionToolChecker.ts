/**
 * An independent checker of the function-tool rules the major providers document, written from their
 * docs (it shares no code with the plugins' conversions): OpenAI function tools (name `^[a-zA-Z0-9_-]{1,64}$`, `parameters`
 * a JSON Schema object) and Anthropic tools (`input_schema` with `type: "object"` at the root, no
 * `oneOf`/`anyOf`/`allOf` at the top level). Tests check with it what a real client actually sent.
 */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/

const resolves = (root: any, ref: string): boolean => {
  if (ref === "#") return true
  if (!ref.startsWith("#/")) return false
  let node = root
  for (const seg of ref.slice(2).split("/")) {
    const key = seg.replace(/~1/g, "/").replace(/~0/g, "~")
    if (node === null || typeof node !== "object" || !(key in node)) return false
    node = node[key]
  }
  return true
}

/**
 * Every violation of the documented rules for one function tool, as "name: problem".
 *
 * @since 0.1.0
 */
export const toolViolations = (name: string, parameters: any): string[] => {
  const problems: string[] = []
  if (!NAME.test(name)) problems.push(`${name}: name does not match ${NAME}`)
  if (parameters === null || typeof parameters !== "object" || Array.isArray(parameters)) {
    problems.push(`${name}: parameters is not a JSON object`)
    return problems
  }
  if (parameters.type !== "object") problems.push(`${name}: root type must be "object"`)
  for (const k of ["oneOf", "anyOf", "allOf", "not", "enum"])
    if (k in parameters) problems.push(`${name}: "${k}" at the top level`)
  if ("$schema" in parameters && typeof parameters.$schema !== "string")
    problems.push(`${name}: $schema must be a string`)
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${path}/${i}`)
    } else if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (v === null && (k === "description" || k === "title" || k === "type"))
          problems.push(`${name}: ${path}/${k} is null`)
        if (k === "$ref" && typeof v === "string" && !resolves(parameters, v))
          problems.push(`${name}: ${path}/$ref ${v} does not resolve`)
        if ((k === "exclusiveMinimum" || k === "exclusiveMaximum") && typeof v === "boolean")
          problems.push(`${name}: ${path}/${k} is a draft-04 boolean`)
        walk(v, `${path}/${k}`)
      }
    }
  }
  walk(parameters, "#")
  return problems
}

/**
 * Violations of a whole tool list: each tool, plus duplicate names.
 *
 * @since 0.1.0
 */
export const toolListViolations = (tools: readonly { name: string; parameters: unknown }[]): string[] => {
  const problems = tools.flatMap((t) => toolViolations(t.name, t.parameters))
  const seen = new Set<string>()
  for (const t of tools) {
    if (seen.has(t.name)) problems.push(`${t.name}: duplicate name`)
    seen.add(t.name)
  }
  return problems
}
