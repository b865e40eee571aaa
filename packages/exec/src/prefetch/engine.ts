/**
 * The prefetch engine behind `createRunner({ prefetch })`: watches each caller's real calls, invalidates
 * on writes, plans follow-ups (declared links, learned patterns), runs the safe ones speculatively through
 * the runner's own pipeline, and serves a caller's matching call from them.
 *
 * @since 0.1.0
 */
import type { Span } from "@opentelemetry/api"
import {
  type CallToolRequest,
  type ExecutionContext,
  isExecutionContext,
  makeContext,
  type ToolResult,
} from "@toolplane/foundation"
import { callContext, NEVER_ABORTED } from "../context.js"
import { requiresApproval } from "../pipeline/approve.js"
import { openScope } from "../pipeline/deadline.js"
import type { ToolEntry } from "../pipeline/resolve.js"
import { canonicalJson } from "./canonical.js"
import { Learner, type LearnerSettings } from "./learner.js"
import {
  MessagePredictor,
  type MessageSettings,
  type MessageToolModel,
  messageToolModel,
  type PrefetchMessage,
} from "./messages.js"
import { type PrefetchMeters, prefetchMeters } from "./metrics.js"
import type { PrefetchOptions } from "./options.js"
import { declaredProposals, type Proposal, resultJson } from "./planner.js"
import type { Prefetcher, PrefetchStats } from "./prefetcher.js"

/**
 * What the runner gives its prefetch engine.
 *
 * @since 0.1.0
 */
export interface PrefetchHost {
  /** The resolved entry of a visible tool, or `undefined`. */
  entry(toolId: string): ToolEntry | undefined
  /** Runs a call through the runner's whole pipeline. */
  run(request: CallToolRequest): Promise<ToolResult>
  /**
   * The runner's authorization (`RunnerOptions.authorize`): a follow-up the caller may not run is not
   * issued. The runner checks the speculative call again when it runs.
   *
   * @since 0.1.0
   */
  authorize?(toolId: string, context: ExecutionContext): boolean
  /** Settles when pending registrations and refreshes are done; `undefined` when none are. */
  pending(): Promise<void> | undefined
  /**
   * The ids of the visible tools (the same array until the tool set changes); without it the message
   * source has no tools to propose.
   */
  toolIds?(): readonly string[]
}

interface Pending {
  readonly key: string
  /** The rule that proposed it (previous tool, follow-up, origin), for precision feedback. */
  readonly rule: Feedback
  readonly backend: string
  readonly host: string | undefined
  readonly controller: AbortController
  readonly started: number
  finished: number | undefined
  /** Settles with the result, or `undefined` when the speculative call failed. */
  readonly promise: Promise<ToolResult | undefined>
  timer: ReturnType<typeof setTimeout> | undefined
  running: boolean
}

/** How often one rule's prefetches were served. */
interface Feedback {
  issued: number
  hits: number
  /** Proposals held back since the last probe. */
  held: number
}

interface CallerScope {
  /** Rule (`origin:previous>follow-up`) -> outcome of its prefetches. */
  readonly feedback: Map<string, Feedback>
  /** The caller's prefetches issued and served, over all rules (the precision budget). */
  issued: number
  hits: number
  readonly callerId: string | undefined
  readonly pending: Map<string, Pending>
  /** Calls of this caller to tools that are not read-only, running now. */
  writes: number
  learner: Learner | undefined
  messages: MessagePredictor | undefined
  /**
   * The metadata (and session) of the caller's latest real call: a speculative call runs with them, so
   * it carries the same identity and grants (e.g. token scopes) as the call that led to it.
   */
  metadata: Readonly<Record<string, unknown>> | undefined
  sessionId: string | undefined
}

interface Facts {
  readonly readOnly: boolean
  readonly eligible: boolean
}

const ANONYMOUS = "\u0000anonymous"
/**
 * The precision budget's default floor: a rule estimated below it is never paid for by the caller's
 * surplus (chosen by cross-validation on BFCL sessions, see the README).
 */
const BUDGET_FLOOR = 0.25
/**
 * The budget's default target above `minPrecision`: it spends only the surplus above `minPrecision` + this,
 * so sampling noise does not take the caller's precision under `minPrecision` (cross-validated, README).
 */
const BUDGET_MARGIN = 0.05
/** The `from` of proposals planned when a message arrives. */
const TURN_START = "\u0000start"
const noop = (): void => {}

/**
 * Completed calls waiting for the learner (a power of two). The runner only writes a slot; the learner
 * reads the slots after the call returned, on the next turn of the event loop. When more calls complete
 * in one turn than the ring holds, the oldest are dropped and each caller's history restarts there.
 */
const RING = 256
const schedule: (fn: () => void) => void =
  typeof setImmediate === "function" ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0)

/**
 * The engine; the runner calls {@link PrefetchEngine.call} around each call.
 *
 * @since 0.1.0
 */
export class PrefetchEngine implements Prefetcher {
  readonly #host: PrefetchHost
  readonly #declared: boolean
  readonly #learning: LearnerSettings | undefined
  readonly #messages: MessageSettings | undefined
  readonly #models = new WeakMap<ToolEntry, MessageToolModel>()
  #modelIds: readonly string[] | undefined
  #modelList: MessageToolModel[] = []
  readonly #maxParallel: number
  readonly #perHost: number
  readonly #maxPerCall: number
  readonly #ttlMs: number
  readonly #minPrecision: number
  /** Below `minPrecision`, the smallest rule estimate the precision budget may spend on (1: no budget). */
  readonly #budgetFloor: number
  /** The caller precision the budget keeps: only hits beyond it are spent. */
  readonly #budgetTarget: number
  readonly #idempotent: boolean
  readonly #readOnly: ((tool: ToolEntry["tool"], backend: string) => boolean) | undefined
  readonly #anonymous: boolean
  readonly #meters: PrefetchMeters | undefined
  readonly #callers = new Map<string, CallerScope>()
  readonly #facts = new WeakMap<ToolEntry, Facts>()
  readonly #speculative = new WeakSet<ExecutionContext>()
  readonly #hosts = new Map<string, number>()
  /** Backend name -> calls to its tools that are not read-only, running now (any caller). */
  readonly #writing = new Map<string, number>()
  #inFlight = 0
  #closed = false
  // The ring of completed calls for the learner (see RING), as parallel arrays.
  readonly #ringScope: (CallerScope | undefined)[] = new Array(RING).fill(undefined)
  readonly #ringEntry: (ToolEntry | undefined)[] = new Array(RING).fill(undefined)
  readonly #ringArgs: (Readonly<Record<string, unknown>> | undefined)[] = new Array(RING).fill(undefined)
  readonly #ringResult: (ToolResult | undefined)[] = new Array(RING).fill(undefined)
  #ringHead = 0
  #ringTail = 0
  #draining = false
  readonly #drainNow = (): void => this.#drain()
  #calls = 0
  #issued = 0
  #hits = 0
  #wasted = 0
  #cancelled = 0
  #invalidated = 0
  #skipped = 0
  #timeSavedMs = 0

  constructor(options: PrefetchOptions, host: PrefetchHost) {
    this.#host = host
    this.#declared = options.declared !== false
    const learning = options.learning ?? true
    this.#learning =
      learning === false
        ? undefined
        : {
            window: Math.max(1, Math.floor((learning === true ? undefined : learning.window) ?? 3)),
            minConfidence: (learning === true ? undefined : learning.minConfidence) ?? 0.25,
            minSupport: Math.max(1, (learning === true ? undefined : learning.minSupport) ?? 2),
          }
    const messages = options.messages ?? true
    this.#messages =
      messages === false
        ? undefined
        : {
            minConfidence: (messages === true ? undefined : messages.minConfidence) ?? 0.5,
            horizon: Math.max(1, Math.floor((messages === true ? undefined : messages.horizon) ?? 16)),
          }
    this.#maxParallel = Math.max(0, Math.floor(options.maxParallel ?? 4))
    this.#perHost = Math.max(0, Math.floor(options.perHost ?? 2))
    this.#maxPerCall = Math.max(0, Math.floor(options.maxPerCall ?? 4))
    this.#ttlMs = Math.max(1, options.ttlMs ?? 5000)
    this.#minPrecision = Math.min(1, Math.max(0, options.minPrecision ?? 0.5))
    const budget = options.precisionBudget ?? true
    const settings = budget === true || budget === false ? undefined : budget
    this.#budgetFloor = budget === false ? 1 : Math.min(1, Math.max(0, settings?.floor ?? BUDGET_FLOOR))
    this.#budgetTarget = Math.min(
      1,
      Math.max(this.#minPrecision, settings?.target ?? this.#minPrecision + BUDGET_MARGIN),
    )
    this.#idempotent = options.idempotent === true
    this.#readOnly = options.readOnly
    this.#anonymous = options.anonymous === true
    this.#meters = options.metrics === false ? undefined : prefetchMeters()
  }

  stats(): PrefetchStats {
    return {
      calls: this.#calls,
      issued: this.#issued,
      hits: this.#hits,
      wasted: this.#wasted,
      cancelled: this.#cancelled,
      invalidated: this.#invalidated,
      skipped: this.#skipped,
      inFlight: this.#inFlight,
      timeSavedMs: this.#timeSavedMs,
    }
  }

  invalidate(callerId?: string): number {
    if (callerId !== undefined) {
      const scope = this.#callers.get(callerId)
      return scope === undefined ? 0 : this.#drop(scope, true)
    }
    let n = 0
    for (const scope of this.#callers.values()) n += this.#drop(scope, true)
    return n
  }

  observeMessage(callerId: string | undefined, message: PrefetchMessage): void {
    if (this.#closed || this.#messages === undefined || message?.role !== "user") return
    if (typeof message.text !== "string" || (callerId === undefined && !this.#anonymous)) return
    // Calls that completed since the last turn of the event loop belong to the previous turn: learn them first.
    if (this.#ringHead !== this.#ringTail) this.#drain()
    const scope = this.#scope(callerId ?? ANONYMOUS)
    scope.messages ??= new MessagePredictor(this.#messages)
    scope.messages.message(message.text, Array.isArray(message.tools) ? message.tools : undefined)
    if (this.#maxPerCall === 0 || scope.writes > 0) return
    const proposals = scope.messages.propose(this.#toolModels(), this.#maxPerCall)
    if (proposals.length > 0) this.#plan(scope, scope.callerId, TURN_START, proposals).catch(noop)
  }

  /** The eligible visible tools without a rate limit, as the message source ranks them (cached per tool set). */
  #toolModels(): readonly MessageToolModel[] {
    const ids = this.#host.toolIds?.()
    if (ids === undefined) return []
    if (ids === this.#modelIds) return this.#modelList
    const list: MessageToolModel[] = []
    for (const id of ids) {
      const entry = this.#host.entry(id)
      if (entry === undefined || !this.#factsOf(entry).eligible || entry.approval === true) continue
      if (entry.limits !== undefined && entry.limits.buckets.length > 0) continue
      let model = this.#models.get(entry)
      if (model === undefined) this.#models.set(entry, (model = messageToolModel(entry.tool)))
      list.push(model)
    }
    this.#modelIds = ids
    this.#modelList = list
    return list
  }

  close(): void {
    this.#closed = true
    this.invalidate()
    this.#callers.clear()
    this.#lastCaller = undefined
    this.#lastScope = undefined
    this.#ringTail = this.#ringHead
    this.#ringScope.fill(undefined)
    this.#ringEntry.fill(undefined)
    this.#ringArgs.fill(undefined)
    this.#ringResult.fill(undefined)
  }

  /**
   * Learns from the calls completed since the last turn, in order, then plans each caller's follow-ups
   * after its latest call.
   */
  #drain(): void {
    this.#draining = false
    if (this.#closed) return
    let tail = this.#ringTail
    const head = this.#ringHead
    if (head - tail > RING) {
      // Some completions were overwritten: no caller's history may bridge the gap.
      for (const scope of this.#callers.values()) scope.learner?.gap()
      tail = head - RING
    }
    this.#ringTail = head
    const latest = new Map<CallerScope, { entry: ToolEntry; result: ToolResult }>()
    for (; tail < head; tail++) {
      const i = tail & (RING - 1)
      const scope = this.#ringScope[i]!
      const entry = this.#ringEntry[i]!
      const result = this.#ringResult[i]!
      const args = this.#ringArgs[i]!
      this.#ringScope[i] = undefined
      this.#ringEntry[i] = undefined
      this.#ringArgs[i] = undefined
      this.#ringResult[i] = undefined
      const json = resultJson(result)
      scope.learner?.observe(entry.id, args, json)
      const facts = this.#factsOf(entry)
      scope.messages?.observe(entry.id, args, facts.eligible, json, !facts.readOnly)
      latest.set(scope, { entry, result })
    }
    if (this.#maxPerCall === 0) return
    for (const [scope, { entry, result }] of latest) {
      if (scope.writes > 0 || this.#callers.get(scope.callerId ?? ANONYMOUS) !== scope) continue
      const declared =
        this.#declared && entry.enrichers.length > 0
          ? declaredProposals(entry.enrichers, entry.id, result, this.#maxPerCall)
          : []
      const learned = scope.learner?.propose() ?? []
      let proposals =
        declared.length === 0 ? learned : learned.length === 0 ? declared : [...declared, ...learned]
      if (scope.messages?.active === true) {
        // The message's suggestions, after what the previous call itself suggests.
        const fromMessage = scope.messages.propose(this.#toolModels(), this.#maxPerCall)
        if (fromMessage.length > 0)
          proposals = proposals.length === 0 ? fromMessage : [...proposals, ...fromMessage]
      }
      if (proposals.length > 0) this.#plan(scope, scope.callerId, entry.id, proposals).catch(noop)
    }
  }

  // One-entry caches in front of the maps: a caller calling one tool again costs two comparisons.
  #lastEntry: ToolEntry | undefined
  #lastFacts: Facts | undefined
  #lastCaller: string | undefined
  #lastScope: CallerScope | undefined

  #factsOf(entry: ToolEntry): Facts {
    if (entry === this.#lastEntry) return this.#lastFacts!
    let facts = this.#facts.get(entry)
    if (facts === undefined) {
      const a = entry.tool.annotations
      const trusted = this.#readOnly
      const readOnly =
        trusted === undefined ? a?.readOnlyHint === true : trusted(entry.tool, entry.backendName)
      facts = {
        readOnly,
        eligible: readOnly || (this.#idempotent && trusted === undefined && a?.idempotentHint === true),
      }
      this.#facts.set(entry, facts)
    }
    this.#lastEntry = entry
    this.#lastFacts = facts
    return facts
  }

  #scope(caller: string): CallerScope {
    if (caller === this.#lastCaller) return this.#lastScope!
    let scope = this.#callers.get(caller)
    if (scope === undefined) {
      scope = {
        feedback: new Map(),
        issued: 0,
        hits: 0,
        callerId: caller === ANONYMOUS ? undefined : caller,
        pending: new Map(),
        writes: 0,
        learner: this.#learning === undefined ? undefined : new Learner(this.#learning),
        messages: undefined,
        metadata: undefined,
        sessionId: undefined,
      }
      this.#callers.set(caller, scope)
    }
    this.#lastCaller = caller
    this.#lastScope = scope
    return scope
  }

  /** Drops every pending prefetch of a scope; `invalidated` counts them as invalidations. */
  #drop(scope: CallerScope, invalidated: boolean): number {
    const n = scope.pending.size
    if (n === 0) return 0
    for (const p of scope.pending.values()) this.#discard(p)
    scope.pending.clear()
    if (invalidated) {
      this.#invalidated += n
      this.#meters?.invalidated.add(n)
    }
    return n
  }

  /** Drops a scope's pending prefetches of one backend's tools (another caller wrote there). */
  #dropBackend(scope: CallerScope, backend: string): void {
    let n = 0
    for (const [key, p] of scope.pending)
      if (p.backend === backend) {
        scope.pending.delete(key)
        this.#discard(p)
        n++
      }
    if (n > 0) {
      this.#invalidated += n
      this.#meters?.invalidated.add(n)
    }
  }

  /** A prefetch leaves the cache unused: wasted, and aborted if still running. */
  #discard(p: Pending): void {
    if (p.timer !== undefined) clearTimeout(p.timer)
    this.#wasted++
    this.#meters?.wasted.add(1)
    if (p.running) {
      this.#cancelled++
      this.#meters?.cancelled.add(1)
      p.controller.abort(new Error("prefetch dropped unused"))
    }
  }

  /**
   * Runs one real call (`next`) with prefetch around it; `span` is the call's span when it is traced (a
   * speculative call's span gets `toolplane.prefetch.speculative`, a hit's `toolplane.prefetch.hit`).
   */
  call(
    request: CallToolRequest,
    next: (request: CallToolRequest) => Promise<ToolResult>,
    span?: Span,
  ): Promise<ToolResult> {
    const context = request.context
    if (
      this.#inFlight > 0 &&
      context !== undefined &&
      isExecutionContext(context) &&
      this.#speculative.has(context)
    ) {
      span?.setAttribute("toolplane.prefetch.speculative", true)
      return next(request)
    }
    const callerId = context?.callerId
    if (this.#closed || (callerId === undefined && !this.#anonymous)) return next(request)
    const pending = this.#host.pending()
    if (pending !== undefined)
      return pending.then(
        () => this.call(request, next),
        () => next(request),
      )
    const entry = typeof request.name === "string" ? this.#host.entry(request.name) : undefined
    if (entry === undefined) return next(request)
    this.#calls++
    const caller = callerId ?? ANONYMOUS
    const facts = this.#factsOf(entry)
    if (!facts.readOnly) {
      // A write may change what any pending prefetch of this caller read, and what other callers'
      // prefetches on the same backend read: drop them, and issue none there until it is done.
      const scope = this.#scope(caller)
      this.#identify(scope, context)
      const backend = entry.backendName
      this.#drop(scope, true)
      for (const other of this.#callers.values()) if (other !== scope) this.#dropBackend(other, backend)
      return this.#write(scope, backend, entry, request, next)
    }
    const scope = this.#scope(caller)
    this.#identify(scope, context)
    if (scope.pending.size > 0) {
      const args = request.arguments ?? {}
      const key = `${entry.id}\u0000${canonicalJson(args)}`
      const p = scope.pending.get(key)
      if (p !== undefined) {
        scope.pending.delete(key)
        return this.#serve(scope, entry, request, args, p, next, span)
      }
    }
    // The runner reports the completion through `completed` (no wrapper on the common path).
    return next(request)
  }

  /** Remembers who made a caller's latest real call (see `CallerScope.metadata`). */
  #identify(scope: CallerScope, context: CallToolRequest["context"]): void {
    if (context === undefined) {
      scope.metadata = undefined
      scope.sessionId = undefined
      return
    }
    scope.metadata = context.metadata
    scope.sessionId = context.sessionId
  }

  /** The runner's hook after a call to a read-only tool completed (writes complete in `call`). */
  completed(
    entry: ToolEntry,
    args: Readonly<Record<string, unknown>>,
    ctx: ExecutionContext,
    result: ToolResult,
  ): void {
    if (this.#closed || (this.#inFlight > 0 && this.#speculative.has(ctx))) return
    const callerId = ctx.callerId
    if (callerId === undefined && !this.#anonymous) return
    if (!this.#factsOf(entry).readOnly) return
    this.#completed(this.#scope(callerId ?? ANONYMOUS), entry, args, result)
  }

  async #write(
    scope: CallerScope,
    backend: string,
    entry: ToolEntry,
    request: CallToolRequest,
    next: (request: CallToolRequest) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    scope.writes++
    this.#writing.set(backend, (this.#writing.get(backend) ?? 0) + 1)
    let result: ToolResult
    try {
      result = await next(request)
    } finally {
      scope.writes--
      const n = this.#writing.get(backend)! - 1
      if (n === 0) this.#writing.delete(backend)
      else this.#writing.set(backend, n)
    }
    this.#completed(scope, entry, request.arguments ?? {}, result)
    return result
  }

  async #serve(
    scope: CallerScope,
    entry: ToolEntry,
    request: CallToolRequest,
    args: Readonly<Record<string, unknown>>,
    p: Pending,
    next: (request: CallToolRequest) => Promise<ToolResult>,
    span: Span | undefined,
  ): Promise<ToolResult> {
    if (p.timer !== undefined) clearTimeout(p.timer)
    const asked = performance.now()
    let result: ToolResult | undefined
    if (!p.running) result = await p.promise
    else {
      const ctx = callContext(request.context)
      const cancellable = ctx.signal !== NEVER_ABORTED
      if (!cancellable && ctx.deadline === undefined) result = await p.promise
      else {
        // The caller may cancel or time out while waiting: then the speculative call is aborted too.
        const guard = openScope(ctx, entry.id, ctx.deadline, cancellable)
        try {
          result = await guard.race(p.promise)
        } catch (error) {
          this.#discard(p)
          throw error
        } finally {
          guard.dispose()
        }
      }
    }
    if (result === undefined) {
      // The speculative call failed: make the real one.
      this.#wasted++
      this.#meters?.wasted.add(1)
      return next(request)
    }
    const saved = Math.max(0, (p.finished ?? asked) - p.started)
    this.#hits++
    p.rule.hits++
    scope.hits++
    this.#timeSavedMs += saved
    if (this.#meters !== undefined) {
      this.#meters.hits.add(1, { "toolplane.tool.id": entry.id })
      this.#meters.timeSaved.add(saved, { "toolplane.tool.id": entry.id })
    }
    if (span !== undefined) {
      span.setAttribute("toolplane.prefetch.hit", true)
      span.setAttribute("toolplane.prefetch.saved_ms", saved)
    }
    this.#completed(scope, entry, args, result)
    return result
  }

  /** A real call completed: learn from it and plan the next ones. */
  #completed(
    scope: CallerScope,
    entry: ToolEntry,
    args: Readonly<Record<string, unknown>>,
    result: ToolResult,
  ): void {
    if (this.#closed) return
    if (scope.learner !== undefined || scope.messages !== undefined) {
      // The learner's bookkeeping runs after the call returned (see #drain): here only a slot is written.
      const head = this.#ringHead++
      const i = head & (RING - 1)
      this.#ringScope[i] = scope
      this.#ringEntry[i] = entry
      this.#ringArgs[i] = args
      this.#ringResult[i] = result
      if (!this.#draining) {
        this.#draining = true
        schedule(this.#drainNow)
      }
    }
    if (
      scope.learner !== undefined ||
      scope.messages !== undefined ||
      scope.writes > 0 ||
      this.#maxPerCall === 0 ||
      !this.#declared ||
      entry.enrichers.length === 0
    )
      return
    // Without learning, declared links are planned at once (with learning, after the learner saw the call).
    const proposals = declaredProposals(entry.enrichers, entry.id, result, this.#maxPerCall)
    if (proposals.length > 0) this.#plan(scope, scope.callerId, entry.id, proposals).catch(noop)
  }

  /**
   * Precision feedback: a rule (declared link or learned pattern, from one tool to another) whose
   * prefetches of this caller are estimated to be used less often than `minPrecision` (by the rule of
   * succession, `(hits + 1) / (issued + 2)`, from the first prefetch on) is held back, with one probe
   * every 8 proposals so it can recover when the caller's habits change. The precision budget lets such a
   * rule through anyway, if its estimate is at least the budget's floor, while the caller's prefetches so
   * far were served more often than the budget's target (`minPrecision` + 0.05 by default) by at least the
   * expected shortfall of this one: the caller's surplus of hits is spent on less likely calls, so the
   * caller's precision settles near the target while more of its calls are served.
   */
  #ruleOf(scope: CallerScope, name: string): Feedback | undefined {
    let rule = scope.feedback.get(name)
    if (rule === undefined) scope.feedback.set(name, (rule = { issued: 0, hits: 0, held: 0 }))
    // The rule-of-succession estimate of the rule's precision (pending prefetches count as unused yet).
    const estimate = (rule.hits + 1) / (rule.issued + 2)
    if (estimate < this.#minPrecision) {
      if (
        estimate >= this.#budgetFloor &&
        scope.hits - this.#budgetTarget * scope.issued >= this.#budgetTarget - estimate
      )
        return rule
      if (++rule.held < 8) return undefined
      rule.held = 0
    }
    return rule
  }

  async #plan(
    scope: CallerScope,
    callerId: string | undefined,
    from: string,
    proposals: Proposal[],
  ): Promise<void> {
    let issued = 0
    const seen = new Set<string>()
    // One verdict per rule and trigger: the calls a link projects out of one result go or stay together.
    const verdicts = new Map<string, Feedback | undefined>()
    for (const proposal of proposals) {
      if (issued >= this.#maxPerCall) break
      const key = `${proposal.toolId}\u0000${canonicalJson(proposal.arguments)}`
      if (seen.has(key) || scope.pending.has(key)) continue
      seen.add(key)
      // A message's suggestions are judged per tool, apart at the turn's start (a write may come first).
      const name =
        proposal.origin === "message"
          ? `message:${from === TURN_START ? TURN_START : ""}>${proposal.toolId}`
          : `${proposal.origin}:${from}>${proposal.toolId}`
      let rule: Feedback | undefined
      if (verdicts.has(name)) rule = verdicts.get(name)
      else verdicts.set(name, (rule = this.#ruleOf(scope, name)))
      if (rule === undefined) continue
      if (await this.#issue(scope, callerId, proposal, key, rule)) issued++
    }
  }

  #skip(): false {
    this.#skipped++
    this.#meters?.skipped.add(1)
    return false
  }

  /** Applies every safety rule, then starts the speculative call. */
  async #issue(
    scope: CallerScope,
    callerId: string | undefined,
    proposal: Proposal,
    key: string,
    rule: Feedback,
  ): Promise<boolean> {
    const entry = this.#host.entry(proposal.toolId)
    if (entry === undefined || !this.#factsOf(entry).eligible) return this.#skip()
    const controller = new AbortController()
    // The speculative call is the caller's: its identity, session and metadata (grants) go with it.
    const ctx = makeContext({
      signal: controller.signal,
      ...(callerId === undefined ? {} : { callerId }),
      ...(scope.sessionId === undefined ? {} : { sessionId: scope.sessionId }),
      ...(scope.metadata === undefined ? {} : { metadata: scope.metadata }),
    })
    if (this.#host.authorize !== undefined && !this.#host.authorize(entry.id, ctx)) return this.#skip()
    if (await requiresApproval(entry)) return this.#skip()
    let checked = entry.validator.validate(proposal.arguments)
    if (checked instanceof Promise) checked = await checked
    if (!checked.ok) return this.#skip()
    // Everything below is synchronous: the caps and the caller's state cannot change under it.
    if (this.#closed || scope.writes > 0 || scope.pending.has(key) || this.#writing.has(entry.backendName))
      return this.#skip()
    if (this.#inFlight >= this.#maxParallel) return this.#skip()
    const args = checked.value as Readonly<Record<string, unknown>>
    let host: string | undefined
    for (let i = 0; i < entry.enrichers.length && host === undefined; i++)
      host = entry.enrichers[i]!.rateLimitHost(entry.id, args)
    for (let i = 0; i < entry.enrichers.length && host === undefined; i++)
      host = entry.enrichers[i]!.valueModel(entry.id)?.rateLimitHost
    if (host !== undefined && (this.#hosts.get(host) ?? 0) >= this.#perHost) return this.#skip()
    const limits = entry.limits
    if (limits !== undefined) {
      // Never past a rate limit: a speculative call takes no token (a real call could then be refused or
      // delayed), so a tool under a rate limit is never prefetched; nor one whose concurrency cap is full
      // or refuses.
      if (limits.buckets.length > 0 || limits.hostBucket?.(args) !== undefined) return this.#skip()
      for (const semaphore of limits.semaphores)
        if (semaphore.mode === "reject" || semaphore.active >= semaphore.max) return this.#skip()
    }
    this.#speculative.add(ctx)
    this.#inFlight++
    if (host !== undefined) this.#hosts.set(host, (this.#hosts.get(host) ?? 0) + 1)
    this.#issued++
    rule.issued++
    scope.issued++
    this.#meters?.issued.add(1, { "toolplane.tool.id": entry.id })
    let pending: Pending | undefined
    const settle = () => {
      this.#inFlight--
      if (host !== undefined) {
        const n = (this.#hosts.get(host) ?? 1) - 1
        if (n === 0) this.#hosts.delete(host)
        else this.#hosts.set(host, n)
      }
      pending!.running = false
      pending!.finished = performance.now()
    }
    const promise = this.#host.run({ name: entry.id, arguments: proposal.arguments, context: ctx }).then(
      (result) => {
        settle()
        return result
      },
      () => {
        settle()
        // A failed prefetch is never served: forget it (the caller's call runs for real).
        if (scope.pending.get(key) === pending) {
          scope.pending.delete(key)
          if (pending!.timer !== undefined) clearTimeout(pending!.timer)
          this.#wasted++
          this.#meters?.wasted.add(1)
        }
        return undefined
      },
    )
    pending = {
      key,
      rule,
      backend: entry.backendName,
      host,
      controller,
      started: performance.now(),
      finished: undefined,
      promise,
      timer: undefined,
      running: true,
    }
    pending.timer = setTimeout(() => {
      if (scope.pending.get(key) !== pending) return
      scope.pending.delete(key)
      pending!.timer = undefined
      this.#discard(pending!)
    }, this.#ttlMs)
    pending.timer.unref?.()
    scope.pending.set(key, pending)
    return true
  }
}
