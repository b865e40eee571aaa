/**
 * The typed errors of Toolplane: one tagged class per failure, a union of all of them, and a JSON form
 * that round-trips, so an error can cross a process or protocol boundary and come back as the same class.
 *
 * @since 0.1.0
 */
import { type Cause, Data, type Types } from "effect"

/**
 * The brand every member of the {@link ToolError} family carries (set by {@link TaggedToolError}), so
 * {@link isToolError} recognises the errors other packages add to the family.
 *
 * @since 0.1.0
 */
export const ToolErrorTypeId: unique symbol = Symbol.for("@toolplane/foundation/ToolError")

/**
 * The type of {@link ToolErrorTypeId}.
 *
 * @since 0.1.0
 */
export type ToolErrorTypeId = typeof ToolErrorTypeId

/**
 * What every member of the {@link ToolError} family has besides its own fields.
 *
 * @since 0.1.0
 */
export interface ToolErrorMember<Tag extends string> extends Cause.YieldableError {
  readonly _tag: Tag
  readonly [ToolErrorTypeId]: ToolErrorTypeId
  /**
   * Whether trying the same call again may succeed (a transient failure). The runner's retry step
   * retries only errors that say so. `false` unless the class says otherwise.
   */
  readonly retryable: boolean
}

/**
 * The base class of a {@link ToolError} family member: `Data.TaggedError(tag)` plus the family brand and
 * a `retryable` property (`false`; a class makes its errors retryable with {@link retryableByDefault}).
 * A package adding members declares them in {@link ToolErrorExtensions} so they join the union.
 *
 * @example
 * ```ts
 * class QuotaExceeded extends TaggedToolError("QuotaExceeded")<{ readonly account: string }> {
 *   readonly code = "QUOTA_EXCEEDED"
 *   override get message(): string {
 *     return `Quota exceeded for ${this.account}`
 *   }
 * }
 * declare module "@toolplane/foundation" {
 *   interface ToolErrorExtensions {
 *     QuotaExceeded: QuotaExceeded
 *   }
 * }
 * ```
 * @since 0.1.0
 */
export const TaggedToolError = <Tag extends string>(
  tag: Tag,
): (new <A extends Record<string, any> = {}>(
  args: Types.VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P] }>,
) => ToolErrorMember<Tag> & Readonly<A>) => {
  const Base = Data.TaggedError(tag)
  Object.defineProperty(Base.prototype, ToolErrorTypeId, { value: ToolErrorTypeId })
  Object.defineProperty(Base.prototype, "retryable", { value: false, writable: true, configurable: true })
  return Base as never
}

/**
 * Makes the errors of a family class retryable unless an instance says otherwise (a `retryable` field
 * given to the constructor overrides it).
 *
 * @since 0.1.0
 */
export const retryableByDefault = (errorClass: { readonly prototype: object }): void => {
  Object.defineProperty(errorClass.prototype, "retryable", {
    value: true,
    writable: true,
    configurable: true,
  })
}

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
export class ToolNotFound extends TaggedToolError("ToolNotFound")<{
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
export class InvalidArguments extends TaggedToolError("InvalidArguments")<{
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
export class InvalidOutput extends TaggedToolError("InvalidOutput")<{
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
export class InvalidTool extends TaggedToolError("InvalidTool")<{
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
export class ToolConflict extends TaggedToolError("ToolConflict")<{
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
export class ExecutionFailed extends TaggedToolError("ExecutionFailed")<{
  readonly toolId: string
  readonly cause: ErrorCause
  readonly detail?: string | undefined
  /** `false` when the failure is deterministic (e.g. a non-zero exit status): retrying cannot help. */
  readonly retryable?: boolean
}> {
  readonly code = "EXECUTION_FAILED"
  constructor(args: {
    readonly toolId: string
    readonly cause: ErrorCause
    readonly detail?: string | undefined
    readonly retryable?: boolean | undefined
  }) {
    // Without an explicit `retryable` the instance inherits the class default (retryable) and its JSON
    // has no `retryable` field.
    const { retryable, ...rest } = args
    super(retryable === undefined ? rest : args)
  }
  override get message(): string {
    const detail = this.detail ? `\n${this.detail}` : ""
    return `Tool "${this.toolId}" failed: ${this.cause.message}${detail}`
  }
}
retryableByDefault(ExecutionFailed)

/**
 * The call did not finish before its deadline.
 *
 * @since 0.1.0
 */
export class Timeout extends TaggedToolError("Timeout")<{
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
export class Cancelled extends TaggedToolError("Cancelled")<{
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
export class ApprovalRequired extends TaggedToolError("ApprovalRequired")<{
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
export class ApprovalDenied extends TaggedToolError("ApprovalDenied")<{
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
export class BackendUnavailable extends TaggedToolError("BackendUnavailable")<{
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
retryableByDefault(BackendUnavailable)

/**
 * A rate limit or concurrency cap refused the call. `retryAfterMs` says when trying again may succeed.
 *
 * @since 0.1.0
 */
export class RateLimited extends TaggedToolError("RateLimited")<{
  readonly key: string
  readonly retryAfterMs?: number | undefined
}> {
  readonly code = "RATE_LIMITED"
  override get message(): string {
    const after = this.retryAfterMs !== undefined ? `; retry after ${Math.ceil(this.retryAfterMs)} ms` : ""
    return `Rate limit exceeded for ${this.key}${after}`
  }
}
retryableByDefault(RateLimited)

/**
 * A cursor failed verification: malformed, tampered, signed with an unknown key, or bound to another
 * tool, caller or argument set.
 *
 * @since 0.1.0
 */
export class InvalidCursor extends TaggedToolError("InvalidCursor")<{
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
export class ExpiredCursor extends TaggedToolError("ExpiredCursor")<{
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
export class ConfigError extends TaggedToolError("ConfigError")<{
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
export class ConversionFailed extends TaggedToolError("ConversionFailed")<{
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
 * No resource has this URI (and no resource template of a visible provider matches it).
 *
 * @since 0.1.0
 */
export class ResourceNotFound extends TaggedToolError("ResourceNotFound")<{
  readonly uri: string
}> {
  readonly code = "RESOURCE_NOT_FOUND"
  override get message(): string {
    return `Unknown resource "${this.uri}"`
  }
}

/**
 * No prompt has this name. `suggestions` holds the closest known names, best first.
 *
 * @since 0.1.0
 */
export class PromptNotFound extends TaggedToolError("PromptNotFound")<{
  readonly name: string
  readonly suggestions: readonly string[]
}> {
  readonly code = "PROMPT_NOT_FOUND"
  override get message(): string {
    const hint = this.suggestions.length > 0 ? `; did you mean ${list(this.suggestions)}?` : ""
    return `Unknown prompt "${this.name}"${hint}`
  }
}

/**
 * Errors other packages add to the {@link ToolError} family, by tag. Empty here; a package declares its
 * members with module augmentation (see {@link TaggedToolError}), e.g. discovery's `SearchError` and
 * compose's skill errors.
 *
 * @since 0.1.0
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface ToolErrorExtensions {}

/**
 * Every error Toolplane produces: foundation's errors and the members other packages declare in
 * {@link ToolErrorExtensions}.
 *
 * @since 0.1.0
 */
export type ToolError = CoreToolError | ToolErrorExtensions[keyof ToolErrorExtensions]

/**
 * The errors foundation defines in this module (the ones {@link toolErrorFromJson} rebuilds without a
 * registered decoder).
 *
 * @since 0.1.0
 */
export type CoreToolError =
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
  | ResourceNotFound
  | PromptNotFound

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
  ResourceNotFound,
  PromptNotFound,
} as const

/**
 * The `_tag` of every {@link ToolError}.
 *
 * @since 0.1.0
 */
export type ToolErrorTag = ToolError["_tag"]

/**
 * The `_tag` of every {@link CoreToolError}.
 *
 * @since 0.1.0
 */
export type CoreToolErrorTag = CoreToolError["_tag"]

/**
 * The stable tags of foundation's errors, in a fixed order.
 *
 * @since 0.1.0
 */
export const toolErrorTags: readonly CoreToolErrorTag[] = Object.keys(constructors) as CoreToolErrorTag[]

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
 * Tells whether a value is one of Toolplane's typed errors: a member of the {@link ToolError} family,
 * foundation's own or one another package adds ({@link TaggedToolError}).
 *
 * @since 0.1.0
 */
export const isToolError = (value: unknown): value is ToolError =>
  value instanceof Error &&
  (value as Partial<Record<ToolErrorTypeId, unknown>>)[ToolErrorTypeId] === ToolErrorTypeId

/**
 * The typed form of anything thrown while running `toolId`: a {@link ToolError} as itself, anything
 * else as {@link ExecutionFailed} describing it. The one place where foreign failures join the family.
 *
 * @example
 * ```ts
 * Effect.tryPromise({ try: () => fetch("https://example.com"), catch: (error) => toToolError(error, "web/fetch") })
 * ```
 * @since 0.1.0
 */
export const toToolError = (error: unknown, toolId: string): ToolError =>
  isToolError(error) ? error : new ExecutionFailed({ toolId, cause: causeOf(error) })

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
const REQUIRED: Record<CoreToolErrorTag, Readonly<Record<string, FieldKind>>> = {
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
  ResourceNotFound: { uri: str },
  PromptNotFound: { name: str, suggestions: arr },
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
 * How {@link toolErrorFromJson} rebuilds a family member another package adds: receives the fields of
 * the error's JSON form (without `_tag`, `code` and `message`, which the class derives) and returns the
 * error, or `undefined` when a field is missing or has the wrong type. Fields come from the wire: check
 * every one. The second argument holds the wire's `code` and `message` as they came, for a member whose
 * `code` is one of its fields rather than derived by the class (discovery's `SearchError`).
 *
 * @since 0.1.0
 */
export type ToolErrorDecoder = (
  fields: Readonly<Record<string, unknown>>,
  wire: { readonly code: unknown; readonly message: unknown },
) => ToolError | undefined

/** The extension members {@link toolErrorFromJson} rebuilds, by tag. */
const decoders = new Map<string, ToolErrorDecoder>()

/**
 * Teaches {@link toolErrorFromJson} to rebuild the members with `tag` that a package adds to the family
 * (declared in {@link ToolErrorExtensions}), so they cross a process or protocol boundary as themselves
 * rather than as `undefined`. Registering the same decoder again does nothing. Throws `ConfigError`
 * for one of foundation's own tags (those rebuild without registration) and for a tag another decoder
 * already holds.
 *
 * @example
 * ```ts
 * class BudgetExceeded extends TaggedToolError("BudgetExceeded")<{ readonly account: string }> {
 *   readonly code = "BUDGET_EXCEEDED"
 * }
 * declare module "@toolplane/foundation" {
 *   interface ToolErrorExtensions {
 *     BudgetExceeded: BudgetExceeded
 *   }
 * }
 * registerToolErrorDecoder("BudgetExceeded", ({ account }) =>
 *   typeof account === "string" ? new BudgetExceeded({ account }) : undefined,
 * )
 * ```
 * @since 0.1.0
 */
export const registerToolErrorDecoder = (
  tag: Exclude<ToolErrorTag, CoreToolErrorTag>,
  decode: ToolErrorDecoder,
): void => {
  if (typeof tag !== "string" || (tag as string) === "")
    throw new ConfigError({
      path: "registerToolErrorDecoder.tag",
      reason: "the tag must be a non-empty string",
    })
  if (Object.hasOwn(constructors, tag))
    throw new ConfigError({
      path: "registerToolErrorDecoder.tag",
      reason: `"${tag}" is one of foundation's own errors; toolErrorFromJson rebuilds it already`,
    })
  const present = decoders.get(tag)
  if (present !== undefined && present !== decode)
    throw new ConfigError({
      path: "registerToolErrorDecoder.tag",
      reason: `a different decoder for "${tag}" is registered already`,
    })
  decoders.set(tag, decode)
}

/**
 * Rebuilds a typed error from its JSON form: foundation's own errors, and the members other packages
 * add once they registered a decoder ({@link registerToolErrorDecoder}; foundation's sandbox errors are
 * registered). Unknown tags, missing fields or a decoder that throws give `undefined`, so a caller can
 * fall back to a generic error without throwing.
 *
 * @since 0.1.0
 */
export const toolErrorFromJson = (json: unknown): ToolError | undefined => {
  if (typeof json !== "object" || json === null) return undefined
  const { _tag, code: _code, message: _message, ...fields } = json as Record<string, unknown>
  if (typeof _tag !== "string") return undefined
  if (!Object.hasOwn(constructors, _tag)) {
    const decode = decoders.get(_tag)
    if (decode === undefined) return undefined
    try {
      const error = decode(fields, { code: _code, message: _message })
      return isToolError(error) && error._tag === _tag ? error : undefined
    } catch {
      return undefined
    }
  }
  for (const [field, kind] of Object.entries(REQUIRED[_tag as CoreToolErrorTag]))
    if (!hasKind(fields[field], kind)) return undefined
  const Ctor = constructors[_tag as CoreToolErrorTag] as unknown as new (
    args: Record<string, unknown>,
  ) => ToolError
  return new Ctor(fields)
}
