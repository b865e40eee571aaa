/**
 * The text a model reads for a failed tool call, shared by every provider adapter.
 *
 * @since 0.1.0
 */
import type { ToolError } from "./toolError.js"
import { suggestToolIds } from "./toolId.js"

/**
 * The text a model reads for a failed call: the stable code, what went wrong and what to do next. Every
 * provider plugin sends this back for a typed failure, so a model sees the same words whatever its API.
 *
 * @example
 * ```ts
 * import { ApprovalRequired, formatToolError } from "@toolplane/foundation"
 *
 * formatToolError(new ApprovalRequired({ toolId: "fs/delete" }), "fs_delete")
 * ```
 * @since 0.1.0
 */
export const formatToolError = (error: ToolError, name: string): string => {
  const head = `Error [${error.code}] calling "${name}"`
  switch (error._tag) {
    case "InvalidArguments":
      return `${head}: the arguments do not match the tool's parameters: ${error.issues
        .slice(0, 10)
        .map((i) => `at ${i.path === "" ? "/" : i.path}: ${i.message} (${i.rule})`)
        .join("; ")}. Correct the arguments and call the tool again.`
    case "ApprovalRequired":
      return `${head}: this tool needs approval before it can run, and it was not run. Tell the user what you wanted to do and ask them to approve it.`
    case "ApprovalDenied":
      return `${head}: the call was denied${error.reason ? ` (${error.reason})` : ""} and did not run. Do not retry it unchanged.`
    case "ToolNotFound":
      return `${head}: the tool no longer exists.`
    case "Timeout":
      return `${head}: the tool did not finish within ${error.timeoutMs} ms.`
    case "RateLimited":
      return `${head}: rate limited${error.retryAfterMs !== undefined ? `; try again in ${Math.ceil(error.retryAfterMs)} ms` : ""}.`
    case "ExecutionFailed":
      return `${head}: the tool failed: ${error.cause.message}`
    default:
      return `${head}: ${error.message}`
  }
}

/**
 * The text a model reads when it calls a name that is not in the exported set: the closest names, and the
 * whole list when it is short (30 names or fewer).
 *
 * @since 0.1.0
 */
export const unknownToolText = (name: string, known: readonly string[]): string => {
  const sorted = [...known].sort()
  const suggestions = suggestToolIds(name, sorted, 3)
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?` : ""
  const list =
    sorted.length === 0
      ? " No tools are available."
      : sorted.length <= 30
        ? ` Available tools: ${sorted.join(", ")}.`
        : ""
  return `Error [TOOL_NOT_FOUND] calling "${name}": there is no tool named "${name}".${hint}${list}`
}
