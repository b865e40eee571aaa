/**
 * The runner: the innermost tool service, over a registry of backends. Plain Promise code with
 * per-tool precomputation, so a call costs a few microseconds more than the handler itself. The pipeline
 * of a call, in order (one module per step under `pipeline/`):
 *
 * 1. resolve the tool (`ToolNotFound` with suggestions);
 * 2. validate arguments (`InvalidArguments`; the backend never sees invalid input), then verify a
 *    continuation cursor when one is given;
 * 3. enrichers' `transformArgs`, in registration order;
 * 4. approval gate (`ApprovalRequired` / `ApprovalDenied`);
 * 5. limits: rate limits, then concurrency caps (`RateLimited`, or waiting);
 * 6. deadline and cancellation (`Timeout` / `Cancelled`; the backend's signal aborts);
 * 7. retry with exponential backoff and jitter, for idempotent or read-only tools;
 * 8. output validation against `outputSchema` (`InvalidOutput`);
 * 9. a span per call (OpenTelemetry), around all of the above.
 *
 * Before all of it, `authorize` (when given) decides whether the caller may run the tool at all; a
 * refusal is `ToolNotFound`. It sits in front of the prefetch engine, so a result prefetched for a
 * caller is served only to a call that may run the tool, and the engine's own speculative calls pass it
 * too (with the context of the call that led to them).
 *
 * @since 0.1.0
 */
import {
  type Backend,
  type BackendCall,
  type BackendHealth,
  BackendRegistry,
  type BackendResult,
  BackendUnavailable,
  type CallToolRequest,
  ConfigError,
  type CursorCodec,
  causeOf,
  deriveContext,
  type Enricher,
  type ExecutionContext,
  type ExecutionContextInit,
  InvalidArguments,
  isToolDefinition,
  isToolError,
  type JsonValue,
  type ListToolsRequest,
  listAllTools,
  makeCursorCodec,
  paginateTools,
  type RegisteredTool,
  randomCursorKey,
  type Tool,
  type ToolPage,
  type ToolResult,
  type ToolService,
  toolOf,
} from "@toolplane/foundation"
import type { Approver } from "./approver.js"
import { type CallAllOptions, type CallAllResult, callAll } from "./callAll.js"
import { callContext, NEVER_ABORTED } from "./context.js"
import type { AuthorizeCall, RunnerOptions } from "./options.js"
import { abortError, isInterruptOnly } from "./pipeline/abort.js"
import { approvalGate } from "./pipeline/approve.js"
import { signContinuation, verifyContinuation } from "./pipeline/continuation.js"
import { openScope } from "./pipeline/deadline.js"
import { categoriesInUse, enricherApplies, enrichTool, isVisible, transformArgs } from "./pipeline/enrich.js"
import { acquireLimits, LimitSet } from "./pipeline/limits.js"
import { makeEntry, type ToolEntry, toolNotFound } from "./pipeline/resolve.js"
import { retryAfter } from "./pipeline/retry.js"
import { type CallSpan, traced, tracingActive } from "./pipeline/trace.js"
import { validateOutput } from "./pipeline/validateOutput.js"
import { PrefetchEngine } from "./prefetch/engine.js"
import type { Prefetcher } from "./prefetch/prefetcher.js"

/**
 * The runner: a {@link ToolService} plus registration, health and pagination helpers.
 *
 * @since 0.1.0
 */
export interface ToolRunner extends ToolService {
  /** Resolves once the initial backends are registered; rejects on a configuration error (a conflict). */
  ready(): Promise<void>
  /** Every visible tool, following listing cursors. */
  listAll(options?: { readonly context?: ExecutionContext | ExecutionContextInit }): Promise<Tool[]>
  /** Calls a paginated tool and follows its continuation cursors within page and byte limits. */
  callAll(request: CallToolRequest, options?: CallAllOptions): Promise<CallAllResult>
  /** Registers a backend. Rejects with `ToolConflict`, `ConfigError` or `BackendUnavailable`. */
  register(backend: Backend): Promise<void>
  /** Unregisters a backend (without closing it). Returns whether it was registered. */
  unregister(name: string): Promise<boolean>
  /**
   * Adds an enricher after the present ones; listings and calls from now on apply it. Throws
   * `ConfigError` when an enricher of that name is present.
   */
  addEnricher(enricher: Enricher): void
  /** Removes an enricher by name. Returns whether it was present. */
  removeEnricher(name: string): boolean
  /** Every backend's health, including backends whose tool list could not be read. */
  health(): Promise<Record<string, BackendHealth>>
  /** Unregisters and closes every backend. */
  close(): Promise<void>
  /** The underlying registry. */
  readonly registry: BackendRegistry
  /** The runner's limits (for inspection: `limits.semaphore("tool:ID")`, `limits.bucket("host:H")`). */
  readonly limits: LimitSet
  /** The codec signing listing and continuation cursors. */
  readonly cursorCodec: CursorCodec
  /**
   * The speculative prefetcher (counters, invalidation) when `prefetch` is configured.
   *
   * @since 0.1.0
   */
  readonly prefetch: Prefetcher | undefined
}

const EMPTY_ARGS: Readonly<Record<string, unknown>> = Object.freeze({})
const noop = (): void => {}

interface Visible {
  readonly registered: RegisteredTool
  readonly listed: Tool
}

class Runner implements ToolRunner {
  readonly registry: BackendRegistry
  readonly limits: LimitSet
  readonly cursorCodec: CursorCodec
  readonly prefetch: PrefetchEngine | undefined
  readonly #untraced = (request: CallToolRequest): Promise<ToolResult> => this.#call(request, undefined)
  readonly #options: RunnerOptions
  #enrichers: readonly Enricher[]
  readonly #approver: Approver | undefined
  readonly #authorize: AuthorizeCall | undefined
  readonly #pageSize: number
  readonly #tracing: boolean
  readonly #hideCategories: boolean
  readonly #entries = new Map<string, ToolEntry>()
  readonly #unsubscribe = new Map<string, () => void>()
  readonly #failed = new Map<string, string>()
  #visible = new Map<string, Visible>()
  #listing: readonly Tool[] = []
  #visibleIds: readonly string[] = []
  #stale = true
  #pending: Promise<void> | undefined
  readonly #ready: Promise<void>

  constructor(options: RunnerOptions) {
    this.#options = options
    this.#enrichers = [...(options.enrichers ?? [])]
    this.#approver = options.approver
    this.#authorize = options.authorize
    this.#pageSize = Math.max(1, Math.floor(options.pageSize ?? 100))
    this.#tracing = options.tracing !== false
    this.#hideCategories = options.hideUnsupportedCategories !== false
    this.registry = new BackendRegistry(options.selection ? { selection: options.selection } : {})
    this.limits = new LimitSet(options.limits)
    this.cursorCodec =
      options.cursorCodec ??
      makeCursorCodec({
        keys:
          options.cursorKeys ??
          (options.cursorSecret !== undefined
            ? [{ kid: "k1", secret: options.cursorSecret }]
            : [randomCursorKey()]),
        ...(options.cursorTtlMs !== undefined ? { ttlMs: options.cursorTtlMs } : {}),
      })
    this.prefetch =
      options.prefetch === undefined || options.prefetch === false
        ? undefined
        : new PrefetchEngine(options.prefetch === true ? {} : options.prefetch, {
            entry: (name) => {
              try {
                return this.#entries.get(name) ?? this.#resolve(name)
              } catch {
                return undefined
              }
            },
            run: (request) => this.callTool(request),
            ...(options.authorize === undefined ? {} : { authorize: options.authorize }),
            pending: () => this.#pending,
            toolIds: () => this.#visibleIds,
          })
    this.registry.onChange(() => {
      this.#stale = true
      this.#entries.clear()
    })
    const initial = this.#registerAll(options.backends ?? [])
    this.#ready = initial
    this.#pending = initial
    initial.then(() => {
      if (this.#pending === initial) this.#pending = undefined
    }, noop)
  }

  async #registerAll(backends: readonly Backend[]): Promise<void> {
    const lists = await Promise.all(
      backends.map((b) =>
        b.toolSchemas().then(
          (tools) => ({ ok: true as const, tools }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      ),
    )
    backends.forEach((backend, i) => {
      const listed = lists[i]!
      if (!listed.ok) {
        this.#failed.set(backend.name, causeOf(listed.error).message)
        return
      }
      this.registry.registerTools(backend, listed.tools)
      this.#watch(backend)
    })
  }

  #watch(backend: Backend): void {
    const off = backend.onToolsChanged(() => {
      // Calls made after a change wait for the refreshed listing, so they are validated and approved
      // against the tool that will actually run.
      const refreshed = this.registry.refresh(backend.name).catch((error: unknown) => {
        this.#failed.set(backend.name, causeOf(error).message)
      })
      const previous = this.#pending
      const pending = previous === undefined ? refreshed : Promise.all([previous, refreshed]).then(noop)
      this.#pending = pending
      pending.then(() => {
        if (this.#pending === pending) this.#pending = undefined
      }, noop)
    })
    this.#unsubscribe.set(backend.name, off)
  }

  ready(): Promise<void> {
    return this.#ready
  }

  #sync(): void {
    if (!this.#stale) return
    const enrichers = this.#enrichers
    const filtering = this.#hideCategories && categoriesInUse(enrichers)
    const visible = new Map<string, Visible>()
    const listing: Tool[] = []
    for (const tool of this.registry.tools()) {
      if (!isVisible(tool, enrichers, filtering)) continue
      const registered = this.registry.resolve(tool.id)!
      const plain = isToolDefinition(tool) ? toolOf(tool) : tool
      const listed = enrichTool(
        plain,
        enrichers.filter((e) => enricherApplies(e, tool)),
      )
      visible.set(tool.id, { registered, listed })
      listing.push(listed)
    }
    listing.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    this.#visible = visible
    this.#listing = listing
    this.#visibleIds = listing.map((t) => t.id)
    this.#entries.clear()
    this.#stale = false
  }

  #resolve(name: string): ToolEntry {
    this.#sync()
    const found = typeof name === "string" ? this.#visible.get(name) : undefined
    if (found === undefined) throw toolNotFound(name, this.#visibleIds)
    const entry = makeEntry(found.registered, found.listed, {
      enrichers: this.#enrichers,
      limits: this.limits,
      retry: this.#options.retry,
      defaultTimeoutMs: this.#options.defaultTimeoutMs,
    })
    this.#entries.set(name, entry)
    return entry
  }

  async listTools(request: ListToolsRequest = {}): Promise<ToolPage> {
    if (this.#pending !== undefined) await this.#pending
    this.#sync()
    const caller = request.context?.callerId
    const authorize = this.#authorize
    let listing = this.#listing
    if (authorize !== undefined) {
      const ctx = callContext(request.context)
      listing = listing.filter((tool) => authorize(tool.id, ctx))
    }
    return paginateTools(listing, {
      codec: this.cursorCodec,
      pageSize: this.#pageSize,
      cursor: request.cursor,
      caller,
    })
  }

  callTool(request: CallToolRequest): Promise<ToolResult> {
    const authorize = this.#authorize
    if (authorize !== undefined) {
      const ctx = callContext(request.context)
      const name = typeof request.name === "string" ? request.name : String(request.name)
      if (!authorize(name, ctx)) {
        this.#sync()
        return Promise.reject(
          toolNotFound(
            name,
            this.#visibleIds.filter((id) => authorize(id, ctx)),
          ),
        )
      }
      if (ctx !== request.context) request = { ...request, context: ctx }
    }
    const prefetch = this.prefetch
    if (this.#tracing && tracingActive())
      return traced(String(request.name), request.id ?? request.context?.callId, (span) =>
        prefetch === undefined
          ? this.#call(request, span)
          : prefetch.call(request, (r) => this.#call(r, span), span.span),
      )
    if (prefetch === undefined) return this.#call(request, undefined)
    return prefetch.call(request, this.#untraced)
  }

  async #call(request: CallToolRequest, span: CallSpan | undefined): Promise<ToolResult> {
    if (this.#pending !== undefined) await this.#pending
    // 1. resolve
    const name = request.name
    const entry = this.#entries.get(name) ?? this.#resolve(name)
    if (span !== undefined) span.backend(entry.backendName)
    const ctx = callContext(request.context)
    // 2. validate
    const raw = request.arguments ?? EMPTY_ARGS
    let checked = entry.validator.validate(raw)
    if (checked instanceof Promise) checked = await checked
    if (!checked.ok) throw new InvalidArguments({ toolId: entry.id, issues: checked.issues })
    let args = checked.value as Readonly<Record<string, unknown>>
    let resume: JsonValue | undefined
    if (request.cursor !== undefined)
      resume = verifyContinuation(this.cursorCodec, request.cursor, entry.id, ctx.callerId, raw)
    // 3. enrich
    if (entry.enrichers.length > 0) args = transformArgs(entry.id, args, entry.enrichers)
    // 4. approve
    if (entry.approval !== false) await approvalGate(entry, this.#approver, args, ctx)
    const call: BackendCall =
      resume === undefined
        ? { toolId: entry.id, arguments: args, validated: !entry.backendRevalidates }
        : { toolId: entry.id, arguments: args, validated: !entry.backendRevalidates, resume }
    // 5.-7. limits, deadline, retry
    const deadline =
      ctx.deadline ?? (entry.timeoutMs === undefined ? undefined : Date.now() + entry.timeoutMs)
    const cancellable = ctx.signal !== NEVER_ABORTED
    // A signal only fiber interruption aborts (the Effect face's) needs no race: the interrupted fiber
    // stops waiting by itself; the backend still sees the abort.
    const interruptOnly = cancellable && isInterruptOnly(ctx.signal)
    let result: BackendResult
    if (deadline === undefined && (!cancellable || interruptOnly) && entry.limits === undefined) {
      if (span !== undefined) span.attempt(1)
      try {
        result = await entry.backend.execute(call, ctx)
      } catch (error) {
        if (entry.retry === undefined) throw error
        result = await retryAfter(entry.retry, error, () => entry.backend.execute(call, ctx), {
          toolId: entry.id,
          signal: interruptOnly ? ctx.signal : undefined,
          deadline: undefined,
          onAttempt: span?.attempt,
        })
      }
    } else {
      result = await this.#guarded(entry, call, ctx, deadline, cancellable, span)
    }
    // 8. output
    if (entry.outputValidator !== undefined) await validateOutput(entry.id, entry.outputValidator, result)
    const out =
      result.continuation != null || result.nextCursor !== undefined
        ? signContinuation(this.cursorCodec, result, entry.id, ctx.callerId, raw)
        : result
    if (this.prefetch !== undefined) this.prefetch.completed(entry, raw, ctx, out)
    return out
  }

  async #guarded(
    entry: ToolEntry,
    call: BackendCall,
    ctx: ExecutionContext,
    deadline: number | undefined,
    cancellable: boolean,
    span: CallSpan | undefined,
  ): Promise<BackendResult> {
    if (deadline === undefined && !cancellable)
      return this.#attempts(entry, call, ctx, undefined, undefined, span)
    const scope = openScope(ctx, entry.id, deadline, cancellable)
    if (scope.signal.aborted) {
      // Cancelled or past its deadline before it started: never reach the backend or spend a token.
      scope.dispose()
      return Promise.reject(abortError(scope.signal, entry.id))
    }
    const scoped = deriveContext(
      ctx,
      deadline === undefined ? { signal: scope.signal } : { signal: scope.signal, deadline },
    )
    try {
      // Without limits or retries an attempt is the backend call itself (no async frame of its own).
      if (entry.limits === undefined && entry.retry === undefined) {
        if (span !== undefined) span.attempt(1)
        return await scope.race(entry.backend.execute(call, scoped))
      }
      return await scope.race(this.#attempts(entry, call, scoped, scope.signal, deadline, span))
    } finally {
      scope.dispose()
    }
  }

  async #attempts(
    entry: ToolEntry,
    call: BackendCall,
    ctx: ExecutionContext,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    span: CallSpan | undefined,
  ): Promise<BackendResult> {
    const release =
      entry.limits === undefined
        ? undefined
        : await acquireLimits(entry.limits, call.arguments, signal, entry.id)
    try {
      if (span !== undefined) span.attempt(1)
      try {
        return await entry.backend.execute(call, ctx)
      } catch (error) {
        if (entry.retry === undefined) throw error
        return await retryAfter(entry.retry, error, () => entry.backend.execute(call, ctx), {
          toolId: entry.id,
          signal,
          deadline,
          onAttempt: span?.attempt,
        })
      }
    } finally {
      release?.()
    }
  }

  listAll(options: { readonly context?: ExecutionContext | ExecutionContextInit } = {}): Promise<Tool[]> {
    return listAllTools(this, options)
  }

  callAll(request: CallToolRequest, options?: CallAllOptions): Promise<CallAllResult> {
    return callAll(this, request, options)
  }

  async register(backend: Backend): Promise<void> {
    if (this.#pending !== undefined) await this.#pending
    let tools: readonly Tool[]
    try {
      tools = await backend.toolSchemas()
    } catch (error) {
      if (isToolError(error)) throw error
      throw new BackendUnavailable({ backend: backend.name, reason: causeOf(error).message })
    }
    this.registry.registerTools(backend, tools)
    this.#failed.delete(backend.name)
    this.#watch(backend)
  }

  async unregister(name: string): Promise<boolean> {
    if (this.#pending !== undefined) await this.#pending.catch(noop)
    this.#unsubscribe.get(name)?.()
    this.#unsubscribe.delete(name)
    this.#failed.delete(name)
    return this.registry.unregister(name)
  }

  addEnricher(enricher: Enricher): void {
    if (this.#enrichers.some((e) => e.name === enricher.name))
      throw new ConfigError({
        path: "enrichers",
        reason: `an enricher named "${enricher.name}" is registered`,
      })
    this.#enrichers = [...this.#enrichers, enricher]
    this.#stale = true
    this.#entries.clear()
  }

  removeEnricher(name: string): boolean {
    const kept = this.#enrichers.filter((e) => e.name !== name)
    if (kept.length === this.#enrichers.length) return false
    this.#enrichers = kept
    this.#stale = true
    this.#entries.clear()
    return true
  }

  async health(): Promise<Record<string, BackendHealth>> {
    await this.#ready.catch(noop)
    const report = await this.registry.health()
    for (const [name, error] of this.#failed) report[name] = { healthy: false, tools: 0, error }
    return report
  }

  async close(): Promise<void> {
    this.prefetch?.close()
    await this.#ready.catch(noop)
    const backends = this.registry.backends()
    for (const off of this.#unsubscribe.values()) off()
    this.#unsubscribe.clear()
    for (const b of backends) this.registry.unregister(b.name)
    await Promise.allSettled(backends.map((b) => b.close()))
  }
}

/**
 * Creates a runner. Registration of `options.backends` starts at once; calls and listings wait for it
 * (`ready()` tells when it is done). A backend whose tool list cannot be read is left out and reported
 * unhealthy; a conflict between backends rejects `ready()` and every call.
 *
 * @example
 * ```ts
 * import { defineTool } from "@toolplane/foundation"
 * import { createRunner } from "@toolplane/exec"
 * import { localBackend } from "@toolplane/plugin-local"
 * import { z } from "zod"
 *
 * const weather = defineTool({
 *   id: "weather/current",
 *   input: z.object({ city: z.string() }),
 *   annotations: { readOnlyHint: true },
 *   handler: async ({ city }) => ({ city, tempC: 21 }),
 * })
 * const runner = createRunner({ backends: [localBackend([weather])] })
 * const result = await runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
 * ```
 * @since 0.1.0
 */
export const createRunner = (options: RunnerOptions = {}): ToolRunner => new Runner(options)
