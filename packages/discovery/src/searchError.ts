/**
 * Raised for invalid input to the discovery API: unknown tool ids, bad options, invalid tools. A
 * member of foundation's `ToolError` family: `isToolError` recognises it and `Effect.catchTag`
 * discriminates it by its `_tag`, `"SearchError"`; `code` says what was wrong.
 *
 * @since 0.1.0
 */
import { registerToolErrorDecoder, TaggedToolError } from "@toolplane/foundation"

declare module "@toolplane/foundation" {
  interface ToolErrorExtensions {
    readonly SearchError: SearchError
  }
}

/**
 * Reasons for a {@link SearchError}.
 *
 * @since 0.1.0
 */
export type SearchErrorCode = "UnknownTool" | "InvalidOptions" | "InvalidTool" | "EmbedderFailed"

/**
 * A discovery call got input it cannot work with. `code` is the machine-readable reason, `reason` the
 * explanation (also the `message`).
 *
 * @since 0.1.0
 */
export class SearchError extends TaggedToolError("SearchError")<{
  readonly code: SearchErrorCode
  readonly reason: string
}> {
  constructor(code: SearchErrorCode, message: string, options?: { cause?: unknown }) {
    super({ code, reason: message })
    if (options?.cause !== undefined)
      Object.defineProperty(this, "cause", { value: options.cause, configurable: true, writable: true })
  }
  override get message(): string {
    return this.reason
  }
}

const SEARCH_ERROR_CODES: ReadonlySet<unknown> = new Set<SearchErrorCode>([
  "UnknownTool",
  "InvalidOptions",
  "InvalidTool",
  "EmbedderFailed",
])

// `toolErrorFromJson` rebuilds a SearchError that crossed a process or protocol boundary. Its `code` is
// one of its fields (the reason code), so it comes from the wire's `code`.
registerToolErrorDecoder("SearchError", ({ reason }, { code }) =>
  SEARCH_ERROR_CODES.has(code) && typeof reason === "string"
    ? new SearchError(code as SearchErrorCode, reason)
    : undefined,
)
