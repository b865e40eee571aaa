/**
 * Tool-name mapping between Toolplane ids (`namespace/name`) and Anthropic tool names
 * (`^[a-zA-Z0-9_-]{1,64}$`): foundation's reversible names (`mapToolNames`) under Anthropic's rule, which
 * is foundation's default. See foundation's `toolNames` module for the rules (readable where it fits and
 * is unique, hashed otherwise, independent of order, two-way).
 *
 * @since 0.1.0
 */
import { readableToolName } from "@toolplane/foundation"

export {
  mapToolNames,
  type RenameReason,
  type ToolNameMap,
  type ToolRename,
} from "@toolplane/foundation"

/**
 * What Anthropic accepts as a tool name.
 *
 * @since 0.1.0
 */
export const ANTHROPIC_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The longest tool name Anthropic accepts.
 *
 * @since 0.1.0
 */
export const ANTHROPIC_NAME_MAX_LENGTH = 64

/**
 * The readable Anthropic form of an id: `/` becomes `__`, any other disallowed character `_`. Not
 * length-limited and not collision-checked: use `mapToolNames` for names you send.
 *
 * @since 0.1.0
 */
export const readableName = (id: string): string => readableToolName(id)
