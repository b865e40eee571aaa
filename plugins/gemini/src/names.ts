/**
 * Tool-name mapping between Toolplane ids (`namespace/name`) and Gemini function names
 * (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`).
 *
 * The documented rule for `FunctionDeclaration.name` varies by API surface and version (letters,
 * digits, `_` and `-`, starting with a letter or `_`, at most 64 characters; some versions also allow
 * `.` and `:`, or 128 characters); names here satisfy all of them.
 *
 * Rules:
 * - the readable form is the id with `/` replaced by `__` and every other character outside
 *   `[a-zA-Z0-9_-]` (only `.` can occur in a valid id) replaced by `_`, with `_` in front when it
 *   would start with a digit or `-`;
 * - a tool keeps its readable form when it fits in 64 characters and no other id of the set has the
 *   same readable form;
 * - otherwise it gets a hashed form: the readable form cut to leave room for `_` and 10 hex digits of
 *   SHA-256 of the id (more digits if even that collides);
 * - every colliding id is hashed (no first-come winner), so the names depend on the set, never on its
 *   order, and are the same in every run;
 * - the map goes both ways, so a name the model calls always leads back to exactly one id.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"

/**
 * The function names this plugin sends: valid under every documented Gemini rule.
 *
 * @since 0.2.0
 */
export const GEMINI_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

/**
 * The longest function name sent.
 *
 * @since 0.2.0
 */
export const GEMINI_NAME_MAX_LENGTH = 64

/**
 * Why a tool's Gemini name differs from its id.
 * - `separator`: only `/` became `__` (nothing lost);
 * - `sanitized`: characters Gemini does not allow (`.`) became `_`, or `_` was put in front;
 * - `shortened`: the readable form was longer than 64 characters, so it was cut and hashed;
 * - `collision`: another tool of the set had the same readable form, so both were hashed.
 *
 * @since 0.2.0
 */
export type RenameReason = "separator" | "sanitized" | "shortened" | "collision"

/**
 * One renamed tool.
 *
 * @since 0.2.0
 */
export interface ToolRename {
  readonly id: string
  readonly name: string
  readonly reason: RenameReason
}

/**
 * A two-way map between tool ids and Gemini tool names, for one set of tools.
 *
 * @since 0.2.0
 */
export interface ToolNameMap {
  /** The Gemini name of a tool id of the set, or `undefined`. */
  nameOf(id: string): string | undefined
  /** The tool id behind an Gemini name, or `undefined` for a name not in the set. */
  idOf(name: string): string | undefined
  /** Every `[id, name]` pair, sorted by id. */
  readonly entries: readonly (readonly [id: string, name: string])[]
  /** Every tool whose name differs from its id, with the reason. */
  readonly renames: readonly ToolRename[]
}

const HASH_DIGITS = 10

const sanitize = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_")

/**
 * The readable Gemini form of an id: `/` becomes `__`, any other disallowed character `_`. Not
 * length-limited and not collision-checked: use {@link mapToolNames} for names you send.
 *
 * @since 0.2.0
 */
export const readableName = (id: string): string => {
  const slash = id.indexOf("/")
  const r = slash < 0 ? sanitize(id) : `${sanitize(id.slice(0, slash))}__${sanitize(id.slice(slash + 1))}`
  return /^[a-zA-Z_]/.test(r) ? r : `_${r}`
}

const hashedName = (id: string, digits: number): string => {
  const hash = createHash("sha256").update(id).digest("hex").slice(0, digits)
  const prefix = readableName(id).slice(0, Math.max(1, GEMINI_NAME_MAX_LENGTH - digits - 1))
  return `${prefix}_${hash}`.slice(0, GEMINI_NAME_MAX_LENGTH)
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Maps a set of tool ids to Gemini tool names that are valid, unique within the set, stable across
 * runs and reversible (see the module rules). Duplicate ids are mapped once.
 *
 * @example
 * ```ts
 * const names = mapToolNames(["weather/current", "github/create_issue"])
 * names.nameOf("weather/current") // "weather__current"
 * names.idOf("weather__current") // "weather/current"
 * ```
 * @since 0.2.0
 */
export const mapToolNames = (ids: Iterable<string>): ToolNameMap => {
  const unique = [...new Set(ids)].sort(byString)
  const readable = new Map<string, string>()
  const count = new Map<string, number>()
  for (const id of unique) {
    const r = readableName(id)
    readable.set(id, r)
    count.set(r, (count.get(r) ?? 0) + 1)
  }
  const toName = new Map<string, string>()
  const toId = new Map<string, string>()
  const reasons = new Map<string, RenameReason>()
  const hashed: string[] = []
  for (const id of unique) {
    const r = readable.get(id)!
    if (r.length > GEMINI_NAME_MAX_LENGTH || r.length === 0) {
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
    let name = hashedName(id, digits)
    while (toId.has(name) && digits < 60) name = hashedName(id, (digits += 4))
    // SHA-256 prefixes of 60 hex digits of two distinct ids do not collide in practice; if they ever
    // did, a counter keeps the name unique and the map still reverses it.
    for (let n = 2; toId.has(name); n++) name = `${hashedName(id, 50)}_${n}`
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
