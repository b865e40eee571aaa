/**
 * The typed errors of Toolplane: one tagged class per failure, a union of all of them, and a JSON form
 * that round-trips, so an error can cross a process or protocol boundary and come back as the same class.
 *
 * @since 0.1.0
 */
import { Data } from "effect"
import { SandboxCrashed, SandboxError, SandboxLimit, SandboxMemory, SandboxTimeout } from "./SandboxError.js"

/**
 * One problem found while validating a value against a schema.
 *
 * @since 0.1.0
 */
export interface ValidationIssue {
  /** JSON Pointer (RFC 6901) to the offending value, `""` for the root. */
  readonly path: string
  /** The schema rule that failed, e.g. `"type"`, `"required"`, `"minimum"`, `"additionalProperties"`. */
  readonly rule: string
  /** Human-readable explanation. */
  readonly message: string
}

/**
 * The serializable shape of an underlying cause (an exception thrown by a handler, a transport error, ...).
 *
 * @since 0.1.0
 */
export interface ErrorCause {
  readonly name: string
  readonly message: string
  readonly stack?: string | undefined
}

/**
 * Converts anything thrown into an {@link ErrorCause}.
 *
 * @since 0.1.0
 */
export const causeOf = (error: unknown): ErrorCause => {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, stack: error.stack }
  }
  if (typeof error === "object" && error !== null && "message" in error) {
    return { name: "Error", message: String((error as { message: unknown }).message) }
  }
  return { name: "Error", message: typeof error === "string" ? error : safeJson(error) }
}

const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const list = (items: readonly string[]): string => items.map((s) => `"${s}"`).join(", ")

const issueSummary = (issues: readonly ValidationIssue[]): string =>
  issues
    .slice(0, 5)
    .map((i) => `at ${i.path === "" ? "/" : i.path}: ${i.message} (${i.rule})`)
    .join("; ") + (issues.length > 5 ? `; and ${issues.length - 5} more` : "")

/**
 * No tool has this id. `suggestions` holds the closest known ids, best first.
 *
 * @since 0.1.0
 */
export class ToolNotFound extends Data.TaggedError("ToolNotFound")<{
  readonly toolId: string
  readonly suggestions: readonly string[]
}> {
  readonly code = "TOOL_NOT_FOUND"
  override get message(): string {
    const hint = this.suggestions.length > 0 ? `; did you mean ${list(this.suggestions)}?` : ""
    return `Unknown tool "${this.toolId}"${hint}`
  }
}

/**
 * Arguments did not match the tool's input schema. Each issue names the JSON pointer and the rule.
 *
 * @since 0.1.0
 */
export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{
  readonly toolId: string
  readonly issues: readonly ValidationIssue[]
}> {
  readonly code = "INVALID_ARGUMENTS"
  override get message(): string {
    return `Invalid arguments for "${this.toolId}": ${issueSummary(this.issues)}`
  }
}

/**
 * A tool's result did not match its declared output schema.
 *
 * @since 0.1.0
 */
export class InvalidOutput extends Data.TaggedError("InvalidOutput")<{
  readonly toolId: string
  readonly issues: readonly ValidationIssue[]
}> {
  readonly code = "INVALID_OUTPUT"
  override get message(): string {
    return `Tool "${this.toolId}" returned output that does not match its outputSchema: ${issueSummary(this.issues)}`
  }
}

/**
 * A tool definition or tool id is malformed. `path` names the offending field.
 *
 * @since 0.1.0
 */
export class InvalidTool extends Data.TaggedError("InvalidTool")<{
  readonly toolId: string
  readonly path: string
  readonly reason: string
}> {
  readonly code = "INVALID_TOOL"
  override get message(): string {
    const where = this.path === "" ? "" : ` at ${this.path}`
    return `Invalid tool "${this.toolId}"${where}: ${this.reason}`
  }
}

/**
 * Two backends claim the same tool id and no selection policy decided between them.
 *
 * @since 0.1.0
 */
export class ToolConflict extends Data.TaggedError("ToolConflict")<{
  readonly toolId: string
  readonly backends: readonly string[]
}> {
  readonly code = "TOOL_CONFLICT"
  override get message(): string {
    return `Tool "${this.toolId}" is claimed by more than one backend (${list(this.backends)}); configure a selection policy or rename one`
  }
}

/**
 * The tool ran and failed. `cause` describes what was thrown.
 *
 * @since 0.1.0
 */
export class ExecutionFailed extends Data.TaggedError("ExecutionFailed")<{
  readonly toolId: string
  readonly cause: ErrorCause
  readonly detail?: string | undefined
  /** `false` when the failure is deterministic (e.g. a non-zero exit status): retrying cannot help. */
  readonly retryable?: boolean | undefined
}> {
  readonly code = "EXECUTION_FAILED"
  override get message(): string {
    const detail = this.detail ? `\n${this.detail}` : ""
    return `Tool "${this.toolId}" failed: ${this.cause.message}${detail}`
  }
}

/**
 * The call did not finish before its deadline.
 *
 * @since 0.1.0
 */
export class Timeout extends Data.TaggedError("Timeout")<{
  readonly toolId: string
  readonly timeoutMs: number
}> {
  readonly code = "TIMEOUT"
  override get message(): string {
    return `Tool "${this.toolId}" timed out after ${this.timeoutMs} ms`
  }
}

/**
 * The caller cancelled the call.
 *
 * @since 0.1.0
 */
export class Cancelled extends Data.TaggedError("Cancelled")<{
  readonly toolId: string
  readonly reason?: string | undefined
}> {
  readonly code = "CANCELLED"
  override get message(): string {
    return `Call to "${this.toolId}" was cancelled${this.reason ? `: ${this.reason}` : ""}`
  }
}

/**
 * The tool needs approval and none was given.
 *
 * @since 0.1.0
 */
export class ApprovalRequired extends Data.TaggedError("ApprovalRequired")<{
  readonly toolId: string
  readonly backend?: string | undefined
}> {
  readonly code = "APPROVAL_REQUIRED"
  override get message(): string {
    return `Tool "${this.toolId}" requires approval before it can run; configure an approver`
  }
}

/**
 * An approver refused the call.
 *
 * @since 0.1.0
 */
export class ApprovalDenied extends Data.TaggedError("ApprovalDenied")<{
  readonly toolId: string
  readonly reason?: string | undefined
}> {
  readonly code = "APPROVAL_DENIED"
  override get message(): string {
    return `Call to "${this.toolId}" was denied${this.reason ? `: ${this.reason}` : ""}`
  }
}

/**
 * The backend serving the tool cannot be reached (dead process, closed connection, failed health check).
 *
 * @since 0.1.0
 */
export class BackendUnavailable extends Data.TaggedError("BackendUnavailable")<{
  readonly backend: string
  readonly toolId?: string | undefined
  readonly reason: string
}> {
  readonly code = "BACKEND_UNAVAILABLE"
  override get message(): string {
    const tool = this.toolId ? ` (calling "${this.toolId}")` : ""
    return `Backend "${this.backend}" is unavailable${tool}: ${this.reason}`
  }
}

/**
 * A rate limit or concurrency cap refused the call. `retryAfterMs` says when trying again may succeed.
 *
 * @since 0.1.0
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly key: string
  readonly retryAfterMs?: number | undefined
}> {
  readonly code = "RATE_LIMITED"
  override get message(): string {
    const after = this.retryAfterMs !== undefined ? `; retry after ${Math.ceil(this.retryAfterMs)} ms` : ""
    return `Rate limit exceeded for ${this.key}${after}`
  }
}

/**
 * A cursor failed verification: malformed, tampered, signed with an unknown key, or bound to another
 * tool, caller or argument set.
 *
 * @since 0.1.0
 */
export class InvalidCursor extends Data.TaggedError("InvalidCursor")<{
  readonly reason: string
}> {
  readonly code = "INVALID_CURSOR"
  override get message(): string {
    return `Invalid cursor: ${this.reason}`
  }
}

/**
 * A correctly signed cursor whose time to live has passed.
 *
 * @since 0.1.0
 */
export class ExpiredCursor extends Data.TaggedError("ExpiredCursor")<{
  readonly expiredAt: number
}> {
  readonly code = "EXPIRED_CURSOR"
  override get message(): string {
    return `Cursor expired at ${new Date(this.expiredAt).toISOString()}; start again from the first page`
  }
}

/**
 * Configuration is invalid. `path` is the key path (e.g. `backends[2].mcp.command`); `file` and `line`
 * are set when known.
 *
 * @since 0.1.0
 */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly path: string
  readonly reason: string
  readonly file?: string | undefined
  readonly line?: number | undefined
}> {
  readonly code = "CONFIG_ERROR"
  override get message(): string {
    const where = [this.file, this.line !== undefined ? `line ${this.line}` : undefined]
      .filter(Boolean)
      .join(":")
    const prefix = where ? `${where}: ` : ""
    return `${prefix}${this.path === "" ? "" : `${this.path}: `}${this.reason}`
  }
}

/**
 * Converting a tool to or from a protocol's shape failed.
 *
 * @since 0.1.0
 */
export class ConversionFailed extends Data.TaggedError("ConversionFailed")<{
  readonly toolId: string
  readonly adapter: string
  readonly reason: string
}> {
  readonly code = "CONVERSION_FAILED"
  override get message(): string {
    return `Cannot convert "${this.toolId}" with the ${this.adapter} adapter: ${this.reason}`
  }
}

/**
 * Every error Toolplane produces.
 *
 * @since 0.1.0
 */
export type ToolError =
  | ToolNotFound
  | InvalidArguments
  | InvalidOutput
  | InvalidTool
  | ToolConflict
  | ExecutionFailed
  | Timeout
  | Cancelled
  | ApprovalRequired
  | ApprovalDenied
  | BackendUnavailable
  | RateLimited
  | InvalidCursor
  | ExpiredCursor
  | ConfigError
  | ConversionFailed
  | SandboxTimeout
  | SandboxMemory
  | SandboxLimit
  | SandboxError
  | SandboxCrashed

const constructors = {
  ToolNotFound,
  InvalidArguments,
  InvalidOutput,
  InvalidTool,
  ToolConflict,
  ExecutionFailed,
  Timeout,
  Cancelled,
  ApprovalRequired,
  ApprovalDenied,
  BackendUnavailable,
  RateLimited,
  InvalidCursor,
  ExpiredCursor,
  ConfigError,
  ConversionFailed,
  SandboxTimeout,
  SandboxMemory,
  SandboxLimit,
  SandboxError,
  SandboxCrashed,
} as const

/**
 * The `_tag` of every {@link ToolError}.
 *
 * @since 0.1.0
 */
export type ToolErrorTag = ToolError["_tag"]

/**
 * The stable tags, in a fixed order.
 *
 * @since 0.1.0
 */
export const toolErrorTags: readonly ToolErrorTag[] = Object.keys(constructors) as ToolErrorTag[]

/**
 * The JSON form of a {@link ToolError}: its fields plus `_tag`, `code` and `message`.
 *
 * @since 0.1.0
 */
export interface ToolErrorJson {
  readonly _tag: ToolErrorTag
  readonly code: string
  readonly message: string
  readonly [field: string]: unknown
}

/**
 * Tells whether a value is one of Toolplane's typed errors.
 *
 * @since 0.1.0
 */
export const isToolError = (value: unknown): value is ToolError =>
  typeof value === "object" &&
  value !== null &&
  "_tag" in value &&
  typeof (value as { _tag: unknown })._tag === "string" &&
  Object.hasOwn(constructors, (value as { _tag: string })._tag) &&
  value instanceof Error

/**
 * Serializes an error to plain JSON (stable `_tag` and `code`, readable `message`, all fields).
 *
 * @since 0.1.0
 */
export const toolErrorToJson = (error: ToolError): ToolErrorJson => {
  const fields: Record<string, unknown> = {}
  for (const key of [...Object.keys(error), "cause"]) {
    const value = (error as unknown as Record<string, unknown>)[key]
    if (value !== undefined) fields[key] = value
  }
  return { ...fields, _tag: error._tag, code: error.code, message: error.message }
}

const str = "string"
const num = "number"
const arr = "array"
const obj = "object"
type FieldKind = typeof str | typeof num | typeof arr | typeof obj
const REQUIRED: Record<ToolErrorTag, Readonly<Record<string, FieldKind>>> = {
  ToolNotFound: { toolId: str, suggestions: arr },
  InvalidArguments: { toolId: str, issues: arr },
  InvalidOutput: { toolId: str, issues: arr },
  InvalidTool: { toolId: str, path: str, reason: str },
  ToolConflict: { toolId: str, backends: arr },
  ExecutionFailed: { toolId: str, cause: obj },
  Timeout: { toolId: str, timeoutMs: num },
  Cancelled: { toolId: str },
  ApprovalRequired: { toolId: str },
  ApprovalDenied: { toolId: str },
  BackendUnavailable: { backend: str, reason: str },
  RateLimited: { key: str },
  InvalidCursor: { reason: str },
  ExpiredCursor: { expiredAt: num },
  ConfigError: { path: str, reason: str },
  ConversionFailed: { toolId: str, adapter: str, reason: str },
  SandboxTimeout: { timeoutMs: num },
  SandboxMemory: { limitBytes: num },
  SandboxLimit: { limit: str, max: num },
  SandboxError: { cause: obj },
  SandboxCrashed: { reason: str },
}

const hasKind = (value: unknown, kind: FieldKind): boolean =>
  kind === arr
    ? Array.isArray(value)
    : kind === obj
      ? typeof value === "object" &&
        value !== null &&
        typeof (value as { message?: unknown }).message === "string"
      : typeof value === kind

/**
 * Rebuilds a typed error from its JSON form. Unknown tags or missing fields give `undefined`, so a
 * caller can fall back to a generic error without throwing.
 *
 * @since 0.1.0
 */
export const toolErrorFromJson = (json: unknown): ToolError | undefined => {
  if (typeof json !== "object" || json === null) return undefined
  const { _tag, code: _code, message: _message, ...fields } = json as Record<string, unknown>
  if (typeof _tag !== "string" || !Object.hasOwn(constructors, _tag)) return undefined
  for (const [field, kind] of Object.entries(REQUIRED[_tag as ToolErrorTag]))
    if (!hasKind(fields[field], kind)) return undefined
  const Ctor = constructors[_tag as ToolErrorTag] as unknown as new (
    args: Record<string, unknown>,
  ) => ToolError
  return new Ctor(fields)
}
