/**
 * What every provider's tool-call runner shares: the text of a typed error for the model, the answer
 * to an unknown name, and running calls with a concurrency cap.
 */
import { suggestToolIds, type ToolError } from "@toolplane/foundation"

/** The text a model reads for a failed call: the stable code, what went wrong and what to do next. */
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

/** The text for a name the model called that is not in the exported set. */
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

/** Runs `run` over `items` with at most `max` in flight; results keep the input order. */
export const mapLimit = async <T, R>(
  items: readonly T[],
  max: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> => {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await run(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(max, items.length)) }, worker))
  return out
}

export const approxBytes = (base64: string) => Math.floor((base64.length * 3) / 4)
