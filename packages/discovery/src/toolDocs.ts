import type { SearchableTool } from "./searchableTool.js"
import { SearchError } from "./searchError.js"

/**
 * Progressive-disclosure levels of a tool doc: `summary` (id and one line, no schema),
 * `schema` (plus description and input schema), `full` (plus examples, notes, tags, output).
 *
 * @since 0.1.0
 */
export type DocLevel = "summary" | "schema" | "full"

/**
 * Size caps of tool docs (characters; schemas measured as compact JSON).
 *
 * @since 0.1.0
 */
export interface DocCaps {
  /** One-line summary. Default 160. */
  readonly summaryChars?: number
  /** Description. Default 1200. */
  readonly descriptionChars?: number
  /** Input (and output) schema as JSON. Default 4000. */
  readonly schemaChars?: number
  /** Number of intent examples. Default 5. */
  readonly examples?: number
  /** Each example. Default 200. */
  readonly exampleChars?: number
  /** Notes. Default 1000. */
  readonly notesChars?: number
}

/**
 * Default {@link DocCaps}.
 *
 * @since 0.1.0
 */
export const DEFAULT_DOC_CAPS: Required<DocCaps> = {
  summaryChars: 160,
  descriptionChars: 1200,
  schemaChars: 4000,
  examples: 5,
  exampleChars: 200,
  notesChars: 1000,
}

/**
 * Summary level: id and one line.
 *
 * @since 0.1.0
 */
export interface ToolSummaryDoc {
  readonly level: "summary"
  readonly id: string
  readonly summary: string
}

/**
 * Schema level: the summary plus title, description and the (size-capped) input schema.
 * `truncated` tells whether any part was shortened.
 *
 * @since 0.1.0
 */
export interface ToolSchemaDoc {
  readonly level: "schema" | "full"
  readonly id: string
  readonly summary: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: Record<string, unknown>
  readonly truncated: boolean
}

/**
 * Full level: everything of the schema level plus examples, notes, tags, category and output schema.
 *
 * @since 0.1.0
 */
export interface ToolFullDoc extends ToolSchemaDoc {
  readonly level: "full"
  readonly examples: string[]
  readonly notes?: string
  readonly tags?: string[]
  readonly category?: string
  readonly outputSchema?: Record<string, unknown>
}

/**
 * A tool doc of some level.
 *
 * @since 0.1.0
 */
export type ToolDoc = ToolSummaryDoc | ToolSchemaDoc | ToolFullDoc

/**
 * Truncates text to at most `max` characters (an ellipsis marks the cut, on a word boundary when
 * one is near).
 *
 * @since 0.1.0
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text
  if (max <= 1) return text.slice(0, Math.max(0, max))
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(" ")
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`
}

/**
 * The one-line summary of a tool: its title (or name) and the first sentence of its description.
 *
 * @since 0.1.0
 */
export function summaryLine(tool: SearchableTool, max = DEFAULT_DOC_CAPS.summaryChars): string {
  const head = tool.title ?? tool.name
  const desc = (tool.description ?? "").replace(/\s+/g, " ").trim()
  const first = desc.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? desc
  const line = first.length > 0 && first.toLowerCase() !== head.toLowerCase() ? `${head}: ${first}` : head
  return truncate(line, max)
}

/**
 * Shrinks a JSON Schema to fit `maxChars` (compact JSON), in steps: drop `examples`/`$comment`,
 * shorten descriptions, drop nested descriptions, drop all descriptions, keep only property types,
 * keep only the first properties. Returns the schema and whether it was shortened.
 *
 * @since 0.1.0
 */
export function capSchema(
  schema: Readonly<Record<string, unknown>>,
  maxChars: number,
): { schema: Record<string, unknown>; truncated: boolean } {
  const fits = (s: unknown) => JSON.stringify(s).length <= maxChars
  const original = clone(schema) as Record<string, unknown>
  if (fits(original)) return { schema: original, truncated: false }
  const steps: ((s: unknown, depth: number) => unknown)[] = [
    (s) => mapSchema(s, (o) => omit(o, ["examples", "$comment"])),
    (s) =>
      mapSchema(s, (o) =>
        typeof o.description === "string" ? { ...o, description: truncate(o.description, 120) } : o,
      ),
    (s) => mapSchema(s, (o, depth) => (depth > 1 ? omit(o, ["description", "title"]) : o)),
    (s) => mapSchema(s, (o) => omit(o, ["description", "title", "default", "pattern", "format"])),
  ]
  let cur: unknown = original
  for (const step of steps) {
    cur = step(cur, 0)
    if (fits(cur)) return { schema: cur as Record<string, unknown>, truncated: true }
  }
  // skeleton: top-level property names and types only, as many as fit
  const props = (original.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = Array.isArray(original.required) ? (original.required as unknown[]) : []
  const kept: Record<string, unknown> = {}
  const skeleton: Record<string, unknown> = { type: "object", properties: kept, "x-truncated": true }
  for (const [k, v] of Object.entries(props)) {
    kept[k] = { type: typeof v?.type === "string" ? v.type : "object" }
    if (!fits(skeleton)) {
      delete kept[k]
      break
    }
  }
  const req = required.filter((r) => typeof r === "string" && r in kept)
  if (req.length > 0 && fits({ ...skeleton, required: req })) skeleton.required = req
  return { schema: skeleton, truncated: true }
}

/**
 * Builds a tool doc at the requested level, within the size caps.
 * Throws {@link SearchError} for an unknown level or bad caps.
 *
 * @since 0.1.0
 */
export function describeTool(tool: SearchableTool, level: "summary", caps?: DocCaps): ToolSummaryDoc
export function describeTool(tool: SearchableTool, level: "schema", caps?: DocCaps): ToolSchemaDoc
export function describeTool(tool: SearchableTool, level: "full", caps?: DocCaps): ToolFullDoc
export function describeTool(tool: SearchableTool, level: DocLevel, caps?: DocCaps): ToolDoc
export function describeTool(tool: SearchableTool, level: DocLevel, caps: DocCaps = {}): ToolDoc {
  const c = { ...DEFAULT_DOC_CAPS, ...caps }
  for (const [k, v] of Object.entries(c)) {
    if (!Number.isInteger(v) || v < 0)
      throw new SearchError("InvalidOptions", `doc caps: ${k} must be a non-negative integer`)
  }
  const summary = summaryLine(tool, c.summaryChars)
  if (level === "summary") return { level, id: tool.id, summary }
  if (level !== "schema" && level !== "full") {
    throw new SearchError("InvalidOptions", `unknown doc level "${String(level)}" (summary, schema or full)`)
  }
  const description =
    tool.description === undefined ? undefined : truncate(tool.description, c.descriptionChars)
  const input = capSchema(tool.inputSchema, c.schemaChars)
  const truncated = input.truncated || (description !== undefined && description !== tool.description)
  const base = {
    id: tool.id,
    summary,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(description !== undefined ? { description } : {}),
    inputSchema: input.schema,
  }
  if (level === "schema") return { level, ...base, truncated }
  const examples = (tool.intents ?? []).slice(0, c.examples).map((e) => truncate(e, c.exampleChars))
  const rawNotes = tool.metadata?.notes
  const notesText =
    typeof rawNotes === "string"
      ? rawNotes
      : Array.isArray(rawNotes)
        ? rawNotes.filter((n) => typeof n === "string").join("\n")
        : undefined
  const notes = notesText === undefined ? undefined : truncate(notesText, c.notesChars)
  const output = tool.outputSchema === undefined ? undefined : capSchema(tool.outputSchema, c.schemaChars)
  return {
    level: "full",
    ...base,
    truncated:
      truncated ||
      (output?.truncated ?? false) ||
      (tool.intents?.length ?? 0) > examples.length ||
      (notes !== undefined && notes !== notesText),
    examples,
    ...(notes !== undefined ? { notes } : {}),
    ...(tool.tags !== undefined ? { tags: [...tool.tags] } : {}),
    ...(tool.category !== undefined ? { category: tool.category } : {}),
    ...(output !== undefined ? { outputSchema: output.schema } : {}),
  }
}

function clone(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? {})) as unknown
}

function omit(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v
  return out
}

/** Applies `f` to every schema node (objects under properties/items/anyOf/...), bottom-up. */
function mapSchema(
  s: unknown,
  f: (o: Record<string, unknown>, depth: number) => Record<string, unknown>,
  depth = 0,
): unknown {
  if (Array.isArray(s)) return s.map((x) => mapSchema(x, f, depth))
  if (s === null || typeof s !== "object") return s
  const o: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    if (k === "properties" || k === "$defs" || k === "definitions" || k === "patternProperties") {
      const m: Record<string, unknown> = {}
      for (const [pk, pv] of Object.entries((v ?? {}) as Record<string, unknown>))
        m[pk] = mapSchema(pv, f, depth + 1)
      o[k] = m
    } else if (
      ["items", "additionalProperties", "anyOf", "oneOf", "allOf", "prefixItems", "not"].includes(k)
    ) {
      o[k] = mapSchema(v, f, depth + 1)
    } else o[k] = v
  }
  return f(o, depth)
}
