/**
 * Trace context of 2026-07-28 requests: `traceparent` (and `tracestate`) in a request's `_meta` become
 * the remote parent of the runner's `execute_tool` span, with an OpenTelemetry tracer provider and an
 * async context manager registered (what an OpenTelemetry Node SDK sets up); a malformed one is ignored.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { type Context, type ContextManager, context, ROOT_CONTEXT, trace } from "@opentelemetry/api"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernPost } from "./helpers/modernPost.js"

/** The async context manager of the OpenTelemetry Node SDK, in a few lines (AsyncLocalStorage). */
class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args))
  }
  bind<T>(_ctx: Context, target: T): T {
    return target
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.#storage.disable()
    return this
  }
}

describe("trace context from a stateless request's _meta", () => {
  const exporter = new InMemorySpanExporter()
  let server: McpHttpServerHandle

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncContextManager())
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    const echo = defineTool({ id: "t/echo", description: "Echo", handler: async () => "ok" })
    const runner = createRunner({ backends: [localBackend([echo], { name: "t", approval: "never" })] })
    await runner.ready()
    server = await serveHttp(runner)
  })

  afterAll(async () => {
    await server?.close()
    trace.disable()
    context.disable()
  })

  it("continues the caller's trace: the call's span has the request's trace id and parent", async () => {
    exporter.reset()
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const parentId = "00f067aa0ba902b7"
    const answer = await modernPost(
      server.url,
      "tools/call",
      { name: "t.echo", arguments: {} },
      { meta: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: "vendor=value" } },
    )
    expect(answer.body.result?.resultType).toBe("complete")
    const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool t/echo")
    expect(span).toBeDefined()
    expect(span!.spanContext().traceId).toBe(traceId)
    expect(span!.parentSpanContext?.spanId).toBe(parentId)
    expect(span!.spanContext().traceState?.get("vendor")).toBe("value")
  })

  it("a malformed traceparent starts a trace of its own", async () => {
    exporter.reset()
    await modernPost(
      server.url,
      "tools/call",
      { name: "t.echo", arguments: {} },
      { meta: { traceparent: "00-zz-01" } },
    )
    const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool t/echo")
    expect(span).toBeDefined()
    expect(span!.parentSpanContext).toBeUndefined()
  })
})
