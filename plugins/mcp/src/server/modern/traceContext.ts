/**
 * Trace context of a stateless request: `traceparent` / `tracestate` in its `_meta` (W3C Trace Context)
 * become the remote parent of the spans the call makes (the runner's `execute_tool` span), when an
 * OpenTelemetry SDK is registered; without one this is a parse and nothing else.
 *
 * @internal
 */
import { type Context, context, createTraceState, trace } from "@opentelemetry/api"

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The context with the request's remote parent span, or `undefined` when it carries none (or a bad one). */
export const remoteParent = (
  traceparent: string | undefined,
  tracestate: string | undefined,
): Context | undefined => {
  if (traceparent === undefined) return undefined
  const m = TRACEPARENT.exec(traceparent.trim())
  if (!m || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined
  return trace.setSpanContext(context.active(), {
    traceId: m[2]!,
    spanId: m[3]!,
    traceFlags: Number.parseInt(m[4]!, 16) & 1,
    isRemote: true,
    ...(tracestate !== undefined ? { traceState: createTraceState(tracestate) } : {}),
  })
}

/** Runs `run` with the request's trace context active (as it is, without one). */
export const withRemoteParent = <A>(parent: Context | undefined, run: () => Promise<A>): Promise<A> =>
  parent === undefined ? run() : context.with(parent, run)
