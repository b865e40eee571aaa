/**
 * Tool ids: `namespace/name`.
 *
 * Rules (checked by {@link parseToolId}):
 * - exactly one `/` separates the namespace from the name;
 * - the namespace is 1–64 characters of `A–Z a–z 0–9 _ -`, starting with a letter or digit;
 * - the name is 1–128 characters of `A–Z a–z 0–9 _ - .`, starting with a letter, digit or `_`
 *   (the MCP tool-name alphabet, so any MCP tool keeps its name).
 *
 * @since 0.1.0
 */
import { InvalidTool } from "./toolError.js"

/**
 * A parsed tool id.
 *
 * @since 0.1.0
 */
export interface ToolIdParts {
  readonly namespace: string
  readonly name: string
}

/** @since 0.1.0 */
export const NAMESPACE_MAX_LENGTH = 64
/** @since 0.1.0 */
export const NAME_MAX_LENGTH = 128

const NAMESPACE_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

const describeBadChar = (value: string, allowed: RegExp, first: RegExp): string | undefined => {
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!
    const ok = i === 0 ? first.test(ch) : allowed.test(ch)
    if (!ok) return `character ${JSON.stringify(ch)} at position ${i} is not allowed`
  }
  return undefined
}

/**
 * Explains why a namespace is invalid, or returns `undefined` when it is valid.
 *
 * @since 0.1.0
 */
export const checkNamespace = (namespace: string): string | undefined => {
  if (namespace.length === 0) return "namespace is empty"
  if (namespace.length > NAMESPACE_MAX_LENGTH)
    return `namespace is ${namespace.length} characters long; the limit is ${NAMESPACE_MAX_LENGTH}`
  if (NAMESPACE_RE.test(namespace)) return undefined
  return `namespace ${describeBadChar(namespace, /[A-Za-z0-9_-]/, /[A-Za-z0-9]/)} (allowed: letters, digits, "_" and "-", starting with a letter or digit)`
}

/**
 * Explains why a tool name is invalid, or returns `undefined` when it is valid.
 *
 * @since 0.1.0
 */
export const checkName = (name: string): string | undefined => {
  if (name.length === 0) return "name is empty"
  if (name.length > NAME_MAX_LENGTH)
    return `name is ${name.length} characters long; the limit is ${NAME_MAX_LENGTH}`
  if (NAME_RE.test(name)) return undefined
  return `name ${describeBadChar(name, /[A-Za-z0-9_.-]/, /[A-Za-z0-9_]/)} (allowed: letters, digits, "_", "-" and ".", starting with a letter, digit or "_")`
}

/**
 * Parses `namespace/name`, failing with {@link InvalidTool} that says what is wrong.
 *
 * @example
 * ```ts
 * parseToolId("github/create_issue") // { namespace: "github", name: "create_issue" }
 * ```
 * @since 0.1.0
 */
export const parseToolId = (id: string): ToolIdParts => {
  if (typeof id !== "string") {
    throw new InvalidTool({ toolId: String(id), path: "id", reason: "tool id must be a string" })
  }
  const slash = id.indexOf("/")
  if (slash < 0) {
    throw new InvalidTool({
      toolId: id,
      path: "id",
      reason: 'tool id must have the form "namespace/name" (no "/" found)',
    })
  }
  if (id.indexOf("/", slash + 1) >= 0) {
    throw new InvalidTool({ toolId: id, path: "id", reason: 'tool id must contain exactly one "/"' })
  }
  const namespace = id.slice(0, slash)
  const name = id.slice(slash + 1)
  const problem = checkNamespace(namespace) ?? checkName(name)
  if (problem !== undefined) throw new InvalidTool({ toolId: id, path: "id", reason: problem })
  return { namespace, name }
}

/**
 * Tells whether `id` is a valid tool id.
 *
 * @since 0.1.0
 */
export const isToolId = (id: unknown): id is string => {
  if (typeof id !== "string") return false
  const slash = id.indexOf("/")
  if (slash < 0 || id.indexOf("/", slash + 1) >= 0) return false
  return checkNamespace(id.slice(0, slash)) === undefined && checkName(id.slice(slash + 1)) === undefined
}

/**
 * Builds `namespace/name`, validating both parts.
 *
 * @since 0.1.0
 */
export const formatToolId = (parts: ToolIdParts): string => {
  const id = `${parts.namespace}/${parts.name}`
  const problem = checkNamespace(parts.namespace) ?? checkName(parts.name)
  if (problem !== undefined) throw new InvalidTool({ toolId: id, path: "id", reason: problem })
  return id
}

/**
 * Levenshtein distance, bounded: returns `max + 1` as soon as the distance exceeds `max`.
 */
const distance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const curr = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      const v = Math.min(prev[j]! + 1, curr[j - 1]! + 1, prev[j - 1]! + cost)
      curr.push(v)
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    prev = curr
  }
  return prev[b.length]!
}

/**
 * The known ids closest to `id` (edit distance on the full id and on the bare name), best first.
 * Used to build {@link ToolNotFound} suggestions.
 *
 * @since 0.1.0
 */
export const suggestToolIds = (id: string, known: Iterable<string>, limit = 3): string[] => {
  const needle = id.toLowerCase()
  const bareNeedle = needle.slice(needle.indexOf("/") + 1)
  const max = Math.max(2, Math.floor(needle.length / 3))
  const scored: Array<[string, number]> = []
  for (const candidate of known) {
    const lower = candidate.toLowerCase()
    const bare = lower.slice(lower.indexOf("/") + 1)
    let d = Math.min(distance(needle, lower, max), distance(bareNeedle, bare, max))
    if (d > max && (lower.includes(bareNeedle) || bareNeedle.includes(bare))) d = max
    if (d <= max) scored.push([candidate, d])
  }
  scored.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
  return scored.slice(0, limit).map(([c]) => c)
}
