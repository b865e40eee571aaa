/**
 * Errors of the stateless serving path: a JSON-RPC error with the HTTP status the 2026-07-28 revision
 * asks for, answered with the request's own id (never `id: null` once the id is known).
 *
 * @internal
 */
import { ModernErrorCode } from "./protocol.js"

/** A refusal of a modern request: its JSON-RPC error and HTTP status. */
export class ModernProtocolError extends Error {
  readonly code: number
  readonly data: unknown
  readonly httpStatus: number
  constructor(code: number, message: string, options: { data?: unknown; httpStatus?: number } = {}) {
    super(message)
    this.name = "ModernProtocolError"
    this.code = code
    this.data = options.data
    this.httpStatus = options.httpStatus ?? 200
  }
}

/** The HTTP status of an error answer: refusals at the edge are 400, unknown methods 404, the rest 200. */
export const httpStatusOf = (code: number): number =>
  code === ModernErrorCode.HeaderMismatch ||
  code === ModernErrorCode.UnsupportedProtocolVersion ||
  code === ModernErrorCode.MissingRequiredClientCapability
    ? 400
    : code === ModernErrorCode.MethodNotFound
      ? 404
      : 200

/** A JSON-RPC error message (the id as the request sent it, `null` only when there was none). */
export const errorMessage = (
  id: string | number | null | undefined,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id: id ?? null,
  error: data === undefined ? { code, message } : { code, message, data },
})
