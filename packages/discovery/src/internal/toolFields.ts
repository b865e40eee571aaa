import type { SearchableTool } from "../searchableTool.js"

/**
 * Parameter names and descriptions found in a JSON Schema (nested objects, arrays, and
 * `anyOf`/`oneOf`/`allOf` branches; `$defs`/`definitions` included), depth-limited.
 */
export function schemaText(schema: unknown, maxDepth = 8): { names: string[]; descriptions: string[] } {
  const names: string[] = []
  const descriptions: string[] = []
  const seen = new Set<unknown>()
  const walk = (node: unknown, depth: number): void => {
    if (depth > maxDepth || node === null || typeof node !== "object" || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1)
      return
    }
    const o = node as Record<string, unknown>
    if (depth > 0) {
      if (typeof o.description === "string") descriptions.push(o.description)
      if (typeof o.title === "string") descriptions.push(o.title)
      if (Array.isArray(o.enum)) for (const e of o.enum) if (typeof e === "string") descriptions.push(e)
    }
    const props = o.properties
    if (props !== null && typeof props === "object" && !Array.isArray(props)) {
      for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
        names.push(k)
        walk(v, depth + 1)
      }
    }
    for (const key of [
      "items",
      "additionalProperties",
      "anyOf",
      "oneOf",
      "allOf",
      "$defs",
      "definitions",
      "prefixItems",
    ]) {
      const child = o[key]
      if (child === undefined) continue
      if (key === "$defs" || key === "definitions") {
        if (child !== null && typeof child === "object")
          for (const v of Object.values(child)) walk(v, depth + 1)
      } else walk(child, depth + 1)
    }
  }
  walk(schema, 0)
  return { names, descriptions }
}

/**
 * The raw text of each BM25F field of a tool, in {@link FIELD_NAMES} order.
 */
export function toolFieldTexts(tool: SearchableTool): string[] {
  const { names, descriptions } = schemaText(tool.inputSchema)
  return [
    tool.name,
    tool.namespace,
    tool.title ?? "",
    tool.description ?? "",
    names.join(" "),
    descriptions.join(" \n "),
    (tool.tags ?? []).join(" "),
    tool.category ?? "",
    outputText(tool.outputSchema),
    (tool.intents ?? []).join(" \n "),
  ]
}

function outputText(schema: unknown): string {
  if (schema === undefined || schema === null || typeof schema !== "object") return ""
  const { names, descriptions } = schemaText(schema)
  return [...names, ...descriptions].join(" \n ")
}

/**
 * Validates the structural minimum of a tool (string id, namespace and name, object schema).
 * Returns an error message or `undefined`.
 */
export function checkTool(tool: unknown): string | undefined {
  if (tool === null || typeof tool !== "object") return "a tool must be an object"
  const t = tool as Record<string, unknown>
  if (typeof t.id !== "string" || t.id.length === 0) return "tool.id must be a non-empty string"
  if (typeof t.namespace !== "string") return `tool ${t.id}: namespace must be a string`
  if (typeof t.name !== "string") return `tool ${t.id}: name must be a string`
  if (t.inputSchema === null || typeof t.inputSchema !== "object")
    return `tool ${t.id}: inputSchema must be an object`
  if (t.tags !== undefined && !Array.isArray(t.tags)) return `tool ${t.id}: tags must be an array`
  if (t.intents !== undefined && !Array.isArray(t.intents)) return `tool ${t.id}: intents must be an array`
  return undefined
}
