/**
 * Step 9, tracing: one OpenTelemetry span per call through `@opentelemetry/api` (span `execute_tool
 * <id>`, attributes `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
 * `toolplane.tool.id`, `toolplane.backend`, `toolplane.outcome`, `toolplane.attempts`,
 * `toolplane.duration_ms`). Until an OpenTelemetry SDK registers a tracer provider the check costs one
 * global lookup and no span object is made. The Effect face adds Effect spans (see `Runner`).
 *
 * @since 0.1.0
 */
import {
  type Attributes,
  context,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api"

const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1")
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate()
const tracer = trace.getTracer("@toolplane/exec", "0.1.0")

/**
 * Whether an OpenTelemetry SDK is registered (otherwise spans would be no-ops and are skipped).
 *
 * @since 0.1.0
 */
export const tracingActive = (): boolean => {
  // Fast path: @opentelemetry/api keeps its registrations on this global; until anything registers a
  // tracer provider it holds no "trace" entry, and no span could be recorded.
  const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL]
  if (registered === undefined || registered.trace === undefined) return false
  const provider = trace.getTracerProvider()
  return (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) !== NOOP_PROVIDER
}

/**
 * What the pipeline reports to the span of a call.
 *
 * @since 0.1.0
 */
export interface CallSpan {
  readonly span: Span
  backend(name: string): void
  attempt(n: number): void
}

/**
 * The outcome of a call as recorded: `"ok"`, `"tool_error"` (a result with `isError`), or the failure's
 * `_tag`.
 *
 * @since 0.1.0
 */
export const outcomeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string"
    ? (error as { _tag: string })._tag
    : "error"

/**
 * Runs `run` inside a span for the call of `toolId`.
 *
 * @since 0.1.0
 */
export const traced = async <A extends { readonly isError?: boolean }>(
  toolId: string,
  callId: string | undefined,
  run: (span: CallSpan) => Promise<A>,
): Promise<A> => {
  const attributes: Attributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": toolId,
    "toolplane.tool.id": toolId,
  }
  if (callId !== undefined) attributes["gen_ai.tool.call.id"] = callId
  const span = tracer.startSpan(`execute_tool ${toolId}`, { kind: SpanKind.INTERNAL, attributes })
  const started = performance.now()
  const handle: CallSpan = {
    span,
    backend: (name) => span.setAttribute("toolplane.backend", name),
    attempt: (n) => span.setAttribute("toolplane.attempts", n),
  }
  try {
    const result = await context.with(trace.setSpan(context.active(), span), () => run(handle))
    span.setAttribute("toolplane.outcome", result.isError ? "tool_error" : "ok")
    return result
  } catch (error) {
    const outcome = outcomeOf(error)
    span.setAttribute("toolplane.outcome", outcome)
    span.setAttribute("error.type", outcome)
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) })
    throw error
  } finally {
    span.setAttribute("toolplane.duration_ms", performance.now() - started)
    span.end()
  }
}
