/**
 * Reversible tool names: a two-way map between Toolplane ids (`namespace/name`) and the function names
 * model providers accept (`[a-zA-Z0-9_-]`, at most 64 characters by default; OpenAI, Anthropic and Gemini
 * all take names of this form). Provider plugins build their name maps with it.
 *
 * Rules:
 * - the readable form is the id with `/` replaced by `__` and every other character outside
 *   `[a-zA-Z0-9_-]` (only `.` can occur in a valid id) replaced by `_` (and, with `letterFirst`, `_` put
 *   in front of a form that would start with a digit or `-`);
 * - a tool keeps its readable form when it fits in `maxLength` characters and no other id of the set has
 *   the same readable form;
 * - otherwise it gets a hashed form: the readable form cut to leave room for `_` and 10 hex digits of
 *   SHA-256 of the id (longer digests if even that collides), so it stays recognizable;
 * - every colliding id is hashed (no first-come winner), so the result depends on the set, never on its
 *   order, and is the same in every run;
 * - the map goes both ways, so a name the model calls always leads back to exactly one id.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/**
 * Why a tool's name differs from its id.
 * - `separator`: only `/` became `__` (nothing lost);
 * - `sanitized`: characters the provider does not allow (`.`) became `_`, or `_` was put in front;
 * - `shortened`: the readable form was longer than the limit, so it was cut and hashed;
 * - `collision`: another tool of the set had the same readable form, so both were hashed.
 *
 * @since 0.1.0
 */
export type RenameReason = "separator" | "sanitized" | "shortened" | "collision"

/**
 * One renamed tool.
 *
 * @since 0.1.0
 */
export interface ToolRename {
  readonly id: string
  readonly name: string
  readonly reason: RenameReason
}

/**
 * A two-way map between tool ids and provider names, for one set of tools.
 *
 * @since 0.1.0
 */
export interface ToolNameMap {
  /** The provider name of a tool id of the set, or `undefined`. */
  nameOf(id: string): string | undefined
  /** The tool id behind a provider name, or `undefined` for a name not in the set. */
  idOf(name: string): string | undefined
  /** Every `[id, name]` pair, sorted by id. */
  readonly entries: readonly (readonly [id: string, name: string])[]
  /** Every tool whose name differs from its id, with the reason. */
  readonly renames: readonly ToolRename[]
}

/**
 * What a provider accepts as a name, beyond the characters `[a-zA-Z0-9_-]`.
 *
 * @since 0.1.0
 */
export interface ToolNameRules {
  /** The longest name (default 64). */
  readonly maxLength?: number
  /** Names start with a letter or `_` (Gemini); otherwise `_` is put in front (default `false`). */
  readonly letterFirst?: boolean
}

const HASH_DIGITS = 10
const DEFAULT_MAX_LENGTH = 64

const sanitize = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_")

/**
 * The readable form of an id under `rules`: `/` becomes `__`, any other disallowed character `_`. Not
 * length-limited and not collision-checked: use {@link mapToolNames} for names you send.
 *
 * @example
 * ```ts
 * readableToolName("fs/read.file") // "fs__read_file"
 * readableToolName("9ns/x", { letterFirst: true }) // "_9ns__x"
 * ```
 * @since 0.1.0
 */
export const readableToolName = (id: string, rules: ToolNameRules = {}): string => {
  const slash = id.indexOf("/")
  const r = slash < 0 ? sanitize(id) : `${sanitize(id.slice(0, slash))}__${sanitize(id.slice(slash + 1))}`
  return rules.letterFirst === true && !/^[a-zA-Z_]/.test(r) ? `_${r}` : r
}

const hashedName = (id: string, digits: number, rules: ToolNameRules): string => {
  const max = rules.maxLength ?? DEFAULT_MAX_LENGTH
  const hash = createHash("sha256").update(id).digest("hex").slice(0, digits)
  // letterFirst keeps at least one readable character, so the name never starts with a hex digit
  const keep = Math.max(rules.letterFirst === true ? 1 : 0, max - digits - 1)
  return `${readableToolName(id, rules).slice(0, keep)}_${hash}`.slice(0, max)
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Maps a set of tool ids to names that are valid under `rules`, unique within the set, stable across
 * runs and reversible (see the module rules). Duplicate ids are mapped once.
 *
 * @example
 * ```ts
 * const names = mapToolNames(["weather/current", "github/create_issue"])
 * names.nameOf("weather/current") // "weather__current"
 * names.idOf("weather__current") // "weather/current"
 * ```
 * @since 0.1.0
 */
export const mapToolNames = (ids: Iterable<string>, rules: ToolNameRules = {}): ToolNameMap => {
  const max = rules.maxLength ?? DEFAULT_MAX_LENGTH
  const unique = [...new Set(ids)].sort(byString)
  const readable = new Map<string, string>()
  const count = new Map<string, number>()
  for (const id of unique) {
    const r = readableToolName(id, rules)
    readable.set(id, r)
    count.set(r, (count.get(r) ?? 0) + 1)
  }
  const toName = new Map<string, string>()
  const toId = new Map<string, string>()
  const reasons = new Map<string, RenameReason>()
  const hashed: string[] = []
  for (const id of unique) {
    const r = readable.get(id)!
    if (r.length > max || r.length === 0) {
      hashed.push(id)
      reasons.set(id, "shortened")
    } else if (count.get(r)! > 1) {
      hashed.push(id)
      reasons.set(id, "collision")
    } else {
      toName.set(id, r)
      toId.set(r, id)
      if (r !== id) reasons.set(id, id.replace("/", "__") === r ? "separator" : "sanitized")
    }
  }
  for (const id of hashed) {
    let digits = HASH_DIGITS
    let name = hashedName(id, digits, rules)
    while (toId.has(name) && digits < 60) name = hashedName(id, (digits += 4), rules)
    // SHA-256 prefixes of 60 hex digits of two distinct ids do not collide in practice; if they ever
    // did, a counter keeps the name unique and the map still reverses it.
    for (let n = 2; toId.has(name); n++) name = `${hashedName(id, 50, rules)}_${n}`
    toName.set(id, name)
    toId.set(name, id)
  }
  const entries = unique.map((id) => [id, toName.get(id)!] as const)
  const renames = unique
    .filter((id) => reasons.has(id))
    .map((id) => ({ id, name: toName.get(id)!, reason: reasons.get(id)! }))
  return {
    nameOf: (id) => toName.get(id),
    idOf: (name) => toId.get(name),
    entries,
    renames,
  }
}
