/**
 * Reading a configuration file: TOML (or JSON, by extension or content), validated against
 * {@link GatewayConfig}. Every problem is a `ConfigError` naming the file, the key path and, where it can
 * be found, the line.
 *
 * @since 0.1.0
 */
import { readFile } from "node:fs/promises"
import { ConfigError } from "@toolplane/foundation"
import { parse as parseToml, TomlError } from "smol-toml"
import type { z } from "zod"
import { didYouMean } from "../didYouMean.js"
import { GatewayConfig } from "./schema.js"

type Path = ReadonlyArray<PropertyKey>

/**
 * Formats a key path the way a user reads it: `backends[2].mcp.command`.
 *
 * @since 0.1.0
 */
export const formatPath = (path: Path): string =>
  path
    .map((segment, i) =>
      typeof segment === "number"
        ? `[${segment}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(segment))
          ? `${i === 0 ? "" : "."}${String(segment)}`
          : `[${JSON.stringify(String(segment))}]`,
    )
    .join("")

const KEY_TOKEN = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*/y

/** Splits a dotted TOML key (`a."b.c".d`) into its segments; `undefined` when it is not a key. */
const splitKey = (text: string): string[] | undefined => {
  const keys: string[] = []
  let at = 0
  for (;;) {
    KEY_TOKEN.lastIndex = at
    const m = KEY_TOKEN.exec(text)
    if (!m) return undefined
    keys.push(m[1] ?? m[2] ?? m[3]!)
    at = KEY_TOKEN.lastIndex
    if (text[at] === ".") {
      at++
      continue
    }
    return at === text.length ? keys : undefined
  }
}

/**
 * Maps every key path written in TOML source to its 1-based line: table headers, array-of-tables
 * elements (with their index), plain and dotted keys, and the keys of one-line inline tables.
 *
 * @since 0.1.0
 */
export const tomlKeyLines = (source: string): Map<string, number> => {
  const lines = new Map<string, number>()
  const arrays = new Map<string, number>()
  const record = (path: readonly PropertyKey[], line: number) => {
    const key = JSON.stringify(path)
    if (!lines.has(key)) lines.set(key, line)
  }
  const resolve = (segments: readonly string[], isArray: boolean): PropertyKey[] => {
    const path: PropertyKey[] = []
    segments.forEach((segment, i) => {
      path.push(segment)
      const key = JSON.stringify(path)
      const last = i === segments.length - 1
      if (last && isArray) {
        const index = (arrays.get(key) ?? -1) + 1
        arrays.set(key, index)
        path.push(index)
      } else if (arrays.has(key)) {
        path.push(arrays.get(key)!)
      }
    })
    return path
  }
  let current: PropertyKey[] = []
  source.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1
    const text = raw.trim()
    if (text === "" || text.startsWith("#")) return
    const header = /^\[(\[?)(.*?)\]?\]\s*(?:#.*)?$/.exec(text)
    if (header && !text.includes("=")) {
      const segments = splitKey(header[2]!)
      if (!segments) return
      current = resolve(segments, header[1] === "[")
      record(current, line)
      return
    }
    const eq = text.indexOf("=")
    if (eq < 0) return
    const keys = splitKey(text.slice(0, eq))
    if (!keys) return
    const path = [...current, ...keys]
    record(path, line)
    const value = text.slice(eq + 1).trim()
    if (value.startsWith("{")) {
      for (const m of value.matchAll(/[{,]\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=/g)) {
        const k = m[1]!.startsWith('"') ? JSON.parse(m[1]!) : m[1]!
        record([...path, k], line)
      }
    }
  })
  return lines
}

/**
 * Finds the 1-based line a key path is written on in TOML source, or the line of its closest written
 * ancestor.
 *
 * @since 0.1.0
 */
export const locateToml = (source: string, path: Path): number | undefined => {
  const lines = tomlKeyLines(source)
  for (let n = path.length; n > 0; n--) {
    const line = lines.get(JSON.stringify(path.slice(0, n)))
    if (line !== undefined) return line
  }
  return undefined
}

/**
 * Finds the 1-based line of a key path in JSON source (best effort).
 *
 * @since 0.1.0
 */
export const locateJson = (source: string, path: Path): number | undefined => {
  const last = [...path].reverse().find((s) => typeof s === "string")
  if (last === undefined) return undefined
  const idx = source.indexOf(`"${String(last)}"`)
  return idx < 0 ? undefined : source.slice(0, idx).split("\n").length
}

/**
 * The issues to report for one zod issue. A union (an MCP backend's stdio or HTTP form) reports the
 * issues of the branch that came closest (fewest issues, the first on a tie), so `{ comand = "x" }`
 * is read as a mistyped stdio backend rather than as an HTTP one missing its `url`.
 */
const issuesOf = (issue: z.core.$ZodIssue): z.core.$ZodIssue[] => {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue]
  const branch = [...issue.errors].sort((a, b) => a.length - b.length)[0]!
  if (branch.length === 0) return [issue]
  return branch.flatMap((nested) =>
    issuesOf({ ...nested, path: [...issue.path, ...nested.path] } as z.core.$ZodIssue),
  )
}

/** Unwraps optional / default / prefault / pipe wrappers of a schema. */
const unwrap = (schema: z.core.$ZodType): z.core.$ZodType => {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType }
  if (def.innerType !== undefined) return unwrap(def.innerType)
  if (def.type === "pipe" && def.in !== undefined) return unwrap(def.in)
  return schema
}

/** The object schemas a key path can lead to (several below a union). */
const objectsAt = (schema: z.core.$ZodType, path: Path): z.core.$ZodType[] => {
  const s = unwrap(schema)
  const def = s._zod.def as {
    type: string
    shape?: Record<string, z.core.$ZodType>
    element?: z.core.$ZodType
    valueType?: z.core.$ZodType
    options?: z.core.$ZodType[]
  }
  if (def.type === "union") return (def.options ?? []).flatMap((option) => objectsAt(option, path))
  if (path.length === 0) return def.type === "object" ? [s] : []
  const [head, ...rest] = path
  if (def.type === "object") {
    const child = def.shape?.[String(head)]
    return child === undefined ? [] : objectsAt(child, rest)
  }
  if (def.type === "array" && typeof head === "number" && def.element) return objectsAt(def.element, rest)
  if (def.type === "record" && def.valueType) return objectsAt(def.valueType, rest)
  return []
}

/** The keys the configuration allows at a key path. */
const knownKeys = (path: Path): string[] =>
  objectsAt(GatewayConfig, path).flatMap((o) =>
    Object.keys((o._zod.def as { shape?: Record<string, unknown> }).shape ?? {}),
  )

/** The value written at a key path of the parsed file. */
const valueAt = (raw: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined,
    raw,
  )

const issueReason = (issue: z.core.$ZodIssue, raw: unknown): string => {
  if (issue.code === "unrecognized_keys")
    return issue.keys.map((k) => `unknown key "${k}"${didYouMean(k, knownKeys(issue.path))}`).join(", ")
  if (issue.code === "invalid_value") {
    const written = valueAt(raw, issue.path)
    if (typeof written === "string")
      return `${issue.message}${didYouMean(
        written,
        issue.values.filter((v): v is string => typeof v === "string"),
      )}`
  }
  return issue.message
}

/**
 * Parses and validates configuration text. `file` is used in messages and to choose the format
 * (`.json` → JSON, anything else → TOML).
 *
 * @since 0.1.0
 */
export const parseConfig = (source: string, file = "toolplane.toml"): GatewayConfig => {
  const isJson = /\.json$/i.test(file) || /^\s*\{/.test(source)
  let raw: unknown
  try {
    raw = isJson ? JSON.parse(source) : parseToml(source)
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ConfigError({
        path: "",
        reason: `invalid TOML: ${error.message.split("\n")[0]}`,
        file,
        line: error.line,
      })
    }
    throw new ConfigError({
      path: "",
      reason: `invalid ${isJson ? "JSON" : "TOML"}: ${(error as Error).message}`,
      file,
    })
  }
  const result = GatewayConfig.safeParse(raw)
  if (result.success) return result.data
  // Every problem, each with its key path and line (not just the first one).
  const problems: ConfigProblem[] = result.error.issues.flatMap(issuesOf).map((issue) => {
    const keyPath = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path
    const line = isJson ? locateJson(source, keyPath) : locateToml(source, keyPath)
    return {
      path: formatPath(issue.path),
      reason: issueReason(issue, raw),
      ...(line !== undefined ? { line } : {}),
    }
  })
  problems.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER))
  const [first, ...rest] = problems
  const error = new ConfigError({
    path: first!.path,
    reason:
      first!.reason +
      rest
        .map(
          (p) =>
            `\n  ${file}${p.line !== undefined ? `:line ${p.line}` : ""}: ${p.path === "" ? "" : `${p.path}: `}${p.reason}`,
        )
        .join(""),
    file,
    ...(first!.line !== undefined ? { line: first!.line } : {}),
  })
  PROBLEMS.set(
    error,
    problems.map((p) => ({ ...p, file })),
  )
  throw error
}

/**
 * One configuration problem.
 *
 * @since 0.1.0
 */
export interface ConfigProblem {
  readonly path: string
  readonly reason: string
  readonly line?: number
  readonly file?: string
}

const PROBLEMS = new WeakMap<ConfigError, readonly ConfigProblem[]>()

/**
 * Every problem a configuration error stands for (a file with several mistakes reports all of them).
 *
 * @since 0.1.0
 */
export const configProblems = (error: ConfigError): readonly ConfigProblem[] =>
  PROBLEMS.get(error) ?? [
    {
      path: error.path,
      reason: error.reason,
      ...(error.line !== undefined ? { line: error.line } : {}),
      ...(error.file !== undefined ? { file: error.file } : {}),
    },
  ]

/**
 * Reads and validates a configuration file.
 *
 * @since 0.1.0
 */
export const loadConfig = async (file: string): Promise<GatewayConfig> => {
  let source: string
  try {
    source = await readFile(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new ConfigError({
      path: "",
      reason: code === "ENOENT" ? "file not found" : `cannot read file: ${(error as Error).message}`,
      file,
    })
  }
  return parseConfig(source, file)
}
