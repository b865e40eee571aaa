/**
 * Tool-name mapping between Toolplane ids (`namespace/name`) and Gemini function names
 * (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`): foundation's reversible names with `letterFirst` (a letter or `_` first).
 * See foundation's `toolNames` module for the rules (readable where it fits and is unique, hashed
 * otherwise, independent of order, two-way).
 *
 * The documented rule for `FunctionDeclaration.name` varies by API surface and version (letters,
 * digits, `_` and `-`, starting with a letter or `_`, at most 64 characters; some versions also allow
 * `.` and `:`, or 128 characters); names here satisfy all of them.
 *
 * @since 0.1.0
 */
import {
  mapToolNames as mapNames,
  readableToolName,
  type ToolNameMap,
  type ToolNameRules,
} from "@toolplane/foundation"

export type { RenameReason, ToolNameMap, ToolRename } from "@toolplane/foundation"

/**
 * The function names this plugin sends: valid under every documented Gemini rule.
 *
 * @since 0.1.0
 */
export const GEMINI_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

/**
 * The longest function name sent.
 *
 * @since 0.1.0
 */
export const GEMINI_NAME_MAX_LENGTH = 64

/** The name rules of {@link GEMINI_NAME_PATTERN} for foundation's `mapToolNames` (internal: not in the index). */
export const GEMINI_NAME_RULES: ToolNameRules = { maxLength: GEMINI_NAME_MAX_LENGTH, letterFirst: true }

/**
 * The readable Gemini form of an id: `/` becomes `__`, any other disallowed character `_`, with `_` in
 * front when it would start with a digit or `-`. Not length-limited and not collision-checked: use
 * {@link mapToolNames} for names you send.
 *
 * @since 0.1.0
 */
export const readableName = (id: string): string => readableToolName(id, GEMINI_NAME_RULES)

/**
 * Maps a set of tool ids to Gemini function names that are valid, unique within the set, stable across
 * runs and reversible. Duplicate ids are mapped once.
 *
 * @example
 * ```ts
 * const names = mapToolNames(["weather/current", "9lives/x"])
 * names.nameOf("weather/current") // "weather__current"
 * names.nameOf("9lives/x") // "_9lives__x"
 * ```
 * @since 0.1.0
 */
export const mapToolNames = (ids: Iterable<string>): ToolNameMap => mapNames(ids, GEMINI_NAME_RULES)
