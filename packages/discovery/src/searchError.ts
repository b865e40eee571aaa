/**
 * Raised for invalid input to the discovery API: unknown tool ids, bad options, invalid tools.
 * Carries a `_tag` so callers can discriminate it structurally (the lead may swap it for a
 * foundation error later).
 *
 * @since 0.1.0
 */
export class SearchError extends Error {
  readonly _tag = "SearchError" as const
  /** Machine-readable reason. */
  readonly code: SearchErrorCode

  constructor(code: SearchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = "SearchError"
    this.code = code
  }
}

/**
 * Reasons for a {@link SearchError}.
 *
 * @since 0.1.0
 */
export type SearchErrorCode = "UnknownTool" | "InvalidOptions" | "InvalidTool" | "EmbedderFailed"
