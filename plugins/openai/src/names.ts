/**
 * Tool-name mapping between Toolplane ids (`namespace/name`) and OpenAI function names
 * (`^[a-zA-Z0-9_-]{1,64}$`): foundation's reversible names (`mapToolNames`) under OpenAI's rule, which is
 * foundation's default. See foundation's `toolNames` module for the rules (readable where it fits and is
 * unique, hashed otherwise, independent of order, two-way).
 *
 * @since 0.1.0
 */
export {
  mapToolNames,
  type RenameReason,
  type ToolNameMap,
  type ToolRename,
} from "@toolplane/foundation"

/**
 * What OpenAI accepts as a function name.
 *
 * @since 0.1.0
 */
export const OPENAI_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The longest function name OpenAI accepts.
 *
 * @since 0.1.0
 */
export const OPENAI_NAME_MAX_LENGTH: number = 64
