/**
 * The lock file of pinned tool definitions (`toolplane.lock.json` next to `toolplane.toml`): per backend,
 * per tool id, the hash of the tool's definition and the definition itself (so a change can be shown as
 * a diff). Written in a stable order (backends and tools sorted, keys sorted inside definitions) so it
 * reviews well in version control. Reading checks every entry: a malformed or hand-edited file is a
 * `ConfigError` naming the file, the key path, the line and what is wrong.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { readFile, rename, rm, writeFile } from "node:fs/promises"
import { basename, isAbsolute, resolve } from "node:path"
import { ConfigError, type PinnedToolDefinition, toolDefinitionHash } from "@toolplane/foundation"
import { formatPath } from "./config/load.js"
import type { GatewayConfig } from "./config/schema.js"

/**
 * One pinned tool: the hash of its definition and the definition.
 *
 * @since 0.1.0
 */
export interface LockedTool {
  readonly hash: string
  readonly definition: PinnedToolDefinition
}

/**
 * The content of a lock file: per backend name, per tool id, the pinned tool.
 *
 * @since 0.1.0
 */
export interface LockFile {
  readonly version: 1
  readonly backends: Readonly<Record<string, { readonly tools: Readonly<Record<string, LockedTool>> }>>
}

/** The lock file of a configuration: `[server] lock_file`, else `<config name>.lock.json` beside it. */
export const lockFilePath = (config: GatewayConfig, baseDir: string, configFile?: string): string => {
  const name =
    config.server.lock_file ??
    `${basename(configFile ?? "toolplane.toml").replace(/\.(toml|json)$/i, "")}.lock.json`
  return isAbsolute(name) ? name : resolve(baseDir, name)
}

const HASH = /^sha256:[0-9a-f]{64}$/
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** The 1-based line of a key path in JSON text: each key searched after the previous one. */
const lineOf = (source: string, path: readonly (string | number)[]): number | undefined => {
  let at = 0
  for (const segment of path) {
    if (typeof segment === "number") continue
    const found = new RegExp(`${escapeRegExp(JSON.stringify(segment))}\\s*:`, "g")
    found.lastIndex = at
    const m = found.exec(source)
    if (!m) break
    at = m.index
  }
  return at === 0 ? undefined : source.slice(0, at).split("\n").length
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Parses and checks lock-file text. Fails with `ConfigError` (file, key path, line) for text that is not
 * JSON, an unknown version or key, a missing or mistyped field, a tool id that does not name its
 * definition, and a hash that does not match its definition (a hand-edited or corrupted entry).
 */
export const parseLockFile = (source: string, file: string): LockFile => {
  const fail = (path: (string | number)[], reason: string): never => {
    const line = lineOf(source, path)
    throw new ConfigError({ path: formatPath(path), reason, file, ...(line !== undefined ? { line } : {}) })
  }
  let raw: unknown
  try {
    raw = JSON.parse(source)
  } catch (error) {
    const message = (error as Error).message
    const position = /position (\d+)/.exec(message)
    throw new ConfigError({
      path: "",
      reason: `not valid JSON (${message}); restore the file from version control or delete it and run toolplane lock`,
      file,
      ...(position ? { line: source.slice(0, Number(position[1])).split("\n").length } : {}),
    })
  }
  if (!isRecord(raw)) return fail([], "must be a JSON object { version, backends }")
  for (const key of Object.keys(raw))
    if (key !== "version" && key !== "backends") fail([key], `unknown key "${key}"`)
  if (raw.version !== 1)
    fail(
      ["version"],
      `must be 1 (the lock file version this toolplane reads), got ${JSON.stringify(raw.version)}`,
    )
  if (!isRecord(raw.backends)) return fail(["backends"], "must be an object of backends by name")
  for (const [backend, entry] of Object.entries(raw.backends)) {
    const at = ["backends", backend]
    if (!isRecord(entry) || !isRecord(entry.tools)) return fail(at, 'must be { "tools": { ... } }')
    for (const key of Object.keys(entry)) if (key !== "tools") fail([...at, key], `unknown key "${key}"`)
    for (const [id, tool] of Object.entries(entry.tools)) {
      const t = [...at, "tools", id]
      if (!isRecord(tool)) return fail(t, 'must be { "hash", "definition" }')
      for (const key of Object.keys(tool))
        if (key !== "hash" && key !== "definition") fail([...t, key], `unknown key "${key}"`)
      if (typeof tool.hash !== "string" || !HASH.test(tool.hash))
        fail([...t, "hash"], `must be "sha256:" and 64 hex digits, got ${JSON.stringify(tool.hash)}`)
      const d = tool.definition
      if (!isRecord(d)) return fail([...t, "definition"], "must be the tool's pinned definition (an object)")
      if (typeof d.name !== "string" || !id.endsWith(`/${d.name}`))
        fail([...t, "definition", "name"], `must be the name of tool "${id}"`)
      if (!isRecord(d.inputSchema)) fail([...t, "definition", "inputSchema"], "must be a JSON Schema object")
      for (const [key, value] of Object.entries(d)) {
        if (key === "name" || key === "inputSchema") continue
        const text = key === "title" || key === "description"
        if (!text && key !== "outputSchema" && key !== "annotations")
          fail([...t, "definition", key], `unknown key "${key}"`)
        if (text ? typeof value !== "string" : !isRecord(value))
          fail([...t, "definition", key], `must be ${text ? "a string" : "an object"}`)
      }
      const computed = toolDefinitionHash(d as unknown as PinnedToolDefinition)
      if (computed !== tool.hash)
        fail(
          [...t, "hash"],
          `does not match the recorded definition (computed ${computed}): the entry was edited by hand or is corrupt; restore the file from version control, or delete the entry and run toolplane lock to pin what the backend serves now`,
        )
    }
  }
  return raw as unknown as LockFile
}

/** JSON text with object keys sorted at every level and two-space indentation (keys stay data). */
const sortedJson = (value: unknown, indent: string): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  const inner = `${indent}  `
  if (Array.isArray(value))
    return value.length === 0
      ? "[]"
      : `[\n${value.map((v) => inner + sortedJson(v, inner)).join(",\n")}\n${indent}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
  return keys.length === 0
    ? "{}"
    : `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${sortedJson(record[k], inner)}`).join(",\n")}\n${indent}}`
}

/**
 * The text of a lock file: `version` first, then backends and tools in sorted order, each tool's `hash`
 * before its `definition` (keys sorted inside); ends with a newline.
 */
export const formatLockFile = (lock: LockFile): string => {
  const backends = Object.keys(lock.backends)
    .sort()
    .map((name) => {
      const tools = lock.backends[name]!.tools
      const entries = Object.keys(tools)
        .sort()
        .map(
          (id) =>
            `        ${JSON.stringify(id)}: {\n          "hash": ${JSON.stringify(tools[id]!.hash)},\n          "definition": ${sortedJson(tools[id]!.definition, "          ")}\n        }`,
        )
      return `    ${JSON.stringify(name)}: {\n      "tools": {${entries.length === 0 ? "}" : `\n${entries.join(",\n")}\n      }`}\n    }`
    })
  return `{\n  "version": 1,\n  "backends": {${backends.length === 0 ? "}" : `\n${backends.join(",\n")}\n  }`}\n}\n`
}

/** The file's text, or `undefined` when it does not exist. Other read failures are `ConfigError`s. */
export const readLockText = async (file: string): Promise<string | undefined> => {
  try {
    return await readFile(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw new ConfigError({
      path: "",
      reason: `cannot read the lock file: ${(error as Error).message}`,
      file,
    })
  }
}

/** Replaces the file's content atomically (a temporary file renamed over it). */
export const writeLockText = async (file: string, text: string): Promise<void> => {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
  try {
    await writeFile(temporary, text, "utf8")
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {})
    throw error
  }
}
