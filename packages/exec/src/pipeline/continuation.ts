/**
 * Paginated tool results: a backend returns a page plus opaque `continuation` state; the runner signs
 * that state into the result's `nextCursor`, bound to the tool, the caller and a fingerprint of the
 * arguments, with an expiry. A continuation call carries the cursor; the runner verifies it and hands the
 * backend the state as `resume`. Nothing is stored server-side, so any replica holding the key continues
 * any page.
 *
 * @since 0.1.0
 */
import type { BackendResult, CursorCodec, JsonValue, ToolResult } from "@toolplane/foundation"

/**
 * The cursor purpose of call continuations.
 *
 * @since 0.1.0
 */
export const CALL_CURSOR_PURPOSE = "tools/call"

/**
 * Verifies a continuation cursor and returns the state to resume from. Fails with `InvalidCursor`
 * (malformed, tampered, unknown key, other tool, caller or arguments) or `ExpiredCursor`.
 *
 * @since 0.1.0
 */
export const verifyContinuation = (
  codec: CursorCodec,
  cursor: string,
  toolId: string,
  caller: string | undefined,
  args: unknown,
): JsonValue =>
  codec.decode(cursor, {
    purpose: CALL_CURSOR_PURPOSE,
    toolId,
    ...(caller !== undefined ? { caller } : {}),
    args,
  }).position

/**
 * Replaces a result's raw `continuation` by a signed `nextCursor` (clients never see the raw state).
 *
 * @since 0.1.0
 */
export const signContinuation = (
  codec: CursorCodec,
  result: BackendResult,
  toolId: string,
  caller: string | undefined,
  args: unknown,
): ToolResult => {
  const { continuation, nextCursor: _ignored, ...rest } = result
  if (continuation === undefined || continuation === null) return rest
  const nextCursor = codec.encode(
    { purpose: CALL_CURSOR_PURPOSE, toolId, ...(caller !== undefined ? { caller } : {}), args },
    continuation,
  )
  return { ...rest, nextCursor }
}
