/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the serving side, for 2026-07-28
 * clients that declare it in a request's capabilities. A `tools/call` of a tool whose `execution.taskSupport`
 * is `optional` or `required` runs as a task: it is answered at once when it completes (or stops at a
 * multi round-trip input request marked {@link BEFORE_TASK_META_KEY}) within a short window, otherwise
 * with a `CreateTaskResult` while the call goes on; `tasks/get` polls it (the result or JSON-RPC error
 * inlined once terminal), `tasks/update` answers the client requests it waits on (an approval, an
 * elicitation of the tool, a durable skill's waiting step: whatever asked through the call's
 * `ExecutionContext.client`), and `tasks/cancel` aborts the call.
 *
 * A task's id is a signed handle ({@link TaskHandles}); its state lives in a {@link TaskSource}. The
 * sources this module has are in memory ({@link LocalTasks}: the replica running the call answers for
 * it); another source (an upstream server's task relayed by a gateway, a store shared by replicas) plugs
 * in through {@link TaskHost.addSource}. A call whose tool binds its state before it becomes a task
 * (foundation's `bindTaskState`, e.g. a durable skill naming its run) gets a handle carrying that
 * reference, signed: every replica, the one running it included, answers from the source that
 * understands the reference (memory is the fallback), so they all tell the same.
 *
 * @internal
 */
import { type ClientRequests, TASK_STATE_KEY, type TaskStateBinding } from "@toolplane/foundation"
import { BEFORE_TASK_META_KEY } from "../../internal/callMarks.js"
import { CALL_CONTROLLER, CallController, MODERN_REQUEST, type ModernRequest } from "../serve.js"
import { ModernProtocolError } from "./errors.js"
import { INPUT_KEY_META_KEY, type InputRound } from "./inputRequests.js"
import { ModernErrorCode } from "./protocol.js"
import { type TaskClaims, type TaskHandleRefusal, TaskHandles } from "./taskHandles.js"
import type { DetailedTask, TaskInputRequest, TaskSource, TaskStatus } from "./taskSource.js"

/** The extension's identifier (capabilities' `extensions` key). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

export { BEFORE_TASK_META_KEY }

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"])

interface Waiting {
  readonly request: TaskInputRequest
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

/** One in-memory task. */
interface LocalTask {
  readonly claims: TaskClaims
  readonly controller: CallController
  readonly createdAt: number
  lastUpdatedAt: number
  status: TaskStatus
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: unknown }
  readonly waiting: Map<string, Waiting>
  /** Every input key the task ever asked (a key is never reused). */
  readonly keys: Set<string>
  readonly counts: Map<string, number>
}

/** Why a task call failed before its task: the -32021 of a client request without the capability, etc. */
export interface TaskError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const iso = (ms: number) => new Date(ms).toISOString()

/** Most tasks one process keeps (finished ones beyond it are dropped, oldest first, before their ttl). */
const MAX_LOCAL_TASKS = 10_000

/** Tasks held in this process: the calls this replica runs. */
export class LocalTasks implements TaskSource {
  readonly #tasks = new Map<string, LocalTask>()
  readonly #now: () => number
  readonly #pollIntervalMs: number

  constructor(options: { now?: () => number; pollIntervalMs?: number } = {}) {
    this.#now = options.now ?? Date.now
    this.#pollIntervalMs = options.pollIntervalMs ?? 500
  }

  /** Tasks not yet terminal, per caller. */
  active(caller: string): number {
    let n = 0
    for (const task of this.#tasks.values()) if (task.claims.c === caller && !TERMINAL.has(task.status)) n++
    return n
  }

  /** Drops expired tasks (a running one is cancelled: nobody can poll it any more). */
  sweep(): void {
    const now = this.#now()
    for (const [id, task] of this.#tasks)
      if (task.claims.e <= now) {
        this.#tasks.delete(id)
        if (!TERMINAL.has(task.status)) this.#stop(task, "the task expired")
      }
  }

  /** Adds a task (already running under `controller`). */
  add(claims: TaskClaims, controller: CallController): LocalTask {
    // finished tasks are kept for their ttl, but not without bound: the oldest finished go first
    if (this.#tasks.size >= MAX_LOCAL_TASKS)
      for (const [id, task] of this.#tasks) {
        if (this.#tasks.size < MAX_LOCAL_TASKS) break
        if (TERMINAL.has(task.status)) this.#tasks.delete(id)
      }
    const now = this.#now()
    const task: LocalTask = {
      claims,
      controller,
      createdAt: now,
      lastUpdatedAt: now,
      status: "working",
      waiting: new Map(),
      keys: new Set(),
      counts: new Map(),
    }
    this.#tasks.set(claims.i, task)
    return task
  }

  #touch(task: LocalTask, status: TaskStatus): void {
    task.status = status
    task.lastUpdatedAt = Math.max(this.#now(), task.lastUpdatedAt)
  }

  /** Records the call's result (ignored once the task is terminal, e.g. cancelled). */
  complete(task: LocalTask, result: Record<string, unknown>): void {
    if (TERMINAL.has(task.status)) return
    task.result = result
    this.#touch(task, "completed")
  }

  /** Records the call's JSON-RPC error. */
  fail(task: LocalTask, error: TaskError): void {
    if (TERMINAL.has(task.status)) return
    task.error = {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined ? { data: error.data } : {}),
    }
    this.#touch(task, "failed")
  }

  /**
   * A client request of the running call: surfaced as one of the task's `inputRequests` under a key
   * unique over the task's life, answered by `tasks/update`.
   */
  ask(task: LocalTask, method: string, raw: Readonly<Record<string, unknown>>): Promise<unknown> {
    if (TERMINAL.has(task.status) || task.controller.signal.aborted)
      return Promise.reject(new Error("the task is no longer running"))
    const meta = isObject(raw._meta) ? raw._meta : undefined
    const named = meta?.[INPUT_KEY_META_KEY]
    const prefix = method === "sampling/createMessage" ? "sampling" : "elicitation"
    let key: string
    if (typeof named === "string" && named.length > 0 && !task.keys.has(named)) key = named
    else {
      const base = typeof named === "string" && named.length > 0 ? named : prefix
      let n = task.counts.get(base) ?? 0
      do key = `${base}-${++n}`
      while (task.keys.has(key))
      task.counts.set(base, n)
    }
    task.keys.add(key)
    const params: Record<string, unknown> = { ...raw }
    if (meta !== undefined) {
      const { [INPUT_KEY_META_KEY]: _key, [BEFORE_TASK_META_KEY]: _before, ...rest } = meta
      if (Object.keys(rest).length > 0) params._meta = rest
      else delete params._meta
    }
    return new Promise((resolve, reject) => {
      task.waiting.set(key, { request: { method, params }, resolve, reject })
      this.#touch(task, "input_required")
    })
  }

  #stop(task: LocalTask, reason: string): void {
    task.controller.cancel(new Error(reason))
    for (const waiting of task.waiting.values()) waiting.reject(new Error(reason))
    task.waiting.clear()
  }

  #held(claims: TaskClaims): LocalTask | "unknown" | "mismatch" {
    const task = this.#tasks.get(claims.i)
    if (task === undefined || task.claims.e <= this.#now()) return "unknown"
    if (
      task.claims.c !== claims.c ||
      task.claims.t !== claims.t ||
      task.claims.e !== claims.e ||
      task.claims.s !== claims.s
    )
      return "mismatch"
    return task
  }

  async get(claims: TaskClaims, handle: string): Promise<DetailedTask | "unknown" | "mismatch"> {
    const task = this.#held(claims)
    if (typeof task === "string") return task
    const inputs: Record<string, TaskInputRequest> = {}
    for (const [key, waiting] of task.waiting) inputs[key] = waiting.request
    return {
      taskId: handle,
      status: task.status,
      createdAt: iso(task.createdAt),
      lastUpdatedAt: iso(task.lastUpdatedAt),
      ttlMs: task.claims.e - task.createdAt,
      ...(TERMINAL.has(task.status) ? {} : { pollIntervalMs: this.#pollIntervalMs }),
      ...(task.status === "input_required" ? { inputRequests: inputs } : {}),
      ...(task.status === "completed" && task.result ? { result: task.result } : {}),
      ...(task.status === "failed" && task.error ? { error: task.error } : {}),
    }
  }

  async update(
    claims: TaskClaims,
    inputResponses: Readonly<Record<string, unknown>>,
  ): Promise<"ok" | "unknown" | "mismatch"> {
    const task = this.#held(claims)
    if (typeof task === "string") return task
    for (const [key, response] of Object.entries(inputResponses)) {
      const waiting = task.waiting.get(key)
      // a response must be an object (an ElicitResult, a CreateMessageResult); anything else leaves it pending
      if (waiting === undefined || !isObject(response)) continue
      task.waiting.delete(key)
      waiting.resolve(response)
    }
    if (task.status === "input_required" && task.waiting.size === 0) this.#touch(task, "working")
    return "ok"
  }

  async cancel(claims: TaskClaims): Promise<"ok" | "unknown" | "mismatch"> {
    const task = this.#held(claims)
    if (typeof task === "string") return task
    if (TERMINAL.has(task.status)) return "ok"
    this.#touch(task, "cancelled")
    this.#stop(task, "the task was cancelled")
    return "ok"
  }
}

/** Options of {@link TaskHost}. */
export interface TaskHostOptions {
  /** How long a task (and its handle) lives from its creation. Default 1 hour. */
  readonly ttlMs?: number
  /** The polling interval suggested to clients. Default 500 ms. */
  readonly pollIntervalMs?: number
  /**
   * How long a task-supporting call may take before it is answered with a task: one that completes (or
   * stops at a {@link BEFORE_TASK_META_KEY} input request) sooner is answered directly. Default 250 ms.
   */
  readonly immediateMs?: number
  /** Tasks not yet terminal a caller may have; a further call runs without a task. Default 64. */
  readonly maxActivePerCaller?: number
  readonly now?: () => number
}

const describeRefusal = (reason: TaskHandleRefusal | "unknown" | "tool"): string =>
  ({
    malformed: "it is not a task handle this server issued",
    signature: "its signature does not match (altered, or issued by another server)",
    expired: "it has expired",
    caller: "it was issued to another caller",
    tool: "it does not match the task it names",
    unknown:
      "no task by that id is held here (it ended and was discarded, or it runs in memory on another replica)",
  })[reason]

const invalidTask = (reason: TaskHandleRefusal | "unknown" | "tool") =>
  new ModernProtocolError(ModernErrorCode.InvalidParams, `Invalid taskId: ${describeRefusal(reason)}`, {
    data: { reason },
  })

/** The `-32021` for a request that needs the extension from a client that did not declare it. */
export const missingTasksCapability = (what: string): ModernProtocolError =>
  new ModernProtocolError(
    ModernErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`,
    { httpStatus: 400, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
  )

/** Whether a request's client capabilities declare the tasks extension. */
export const declaresTasks = (capabilities: Readonly<Record<string, unknown>>): boolean => {
  const extensions = capabilities.extensions
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION])
}

/** Server capabilities plus the tasks extension (for `server/discover`). */
export const withTasksExtension = (caps: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const extensions = isObject(caps.extensions) ? caps.extensions : {}
  return { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } }
}

/** A page of `tools/list` as the exposure's handler answers it. */
type ListTools = (params: Record<string, unknown>, extra: unknown) => Promise<Record<string, unknown>>

/** How long a caller's task-support listing is trusted. */
const SUPPORT_TTL_MS = 30_000

/**
 * Each listed tool's `execution.taskSupport`, per caller (its own listing: a tool hidden from it is not
 * looked up), kept 30 s and dropped when the tool list changes.
 */
export class TaskSupport {
  readonly #byCaller = new Map<
    string,
    { at: number; tools: Promise<Map<string, string>>; settled?: Map<string, string> }
  >()

  /**
   * The support of tool `name` for `caller` when its listing is at hand (read and not expired):
   * `"none"` for a tool that runs without a task; `undefined` when {@link TaskSupport.of} must look.
   */
  cached(name: string, caller: string): "optional" | "required" | "none" | undefined {
    const entry = this.#byCaller.get(caller)
    if (entry?.settled === undefined || Date.now() - entry.at > SUPPORT_TTL_MS) return undefined
    const support = entry.settled.get(name)
    return support === "optional" || support === "required" ? support : "none"
  }

  /** The support of tool `name` for `caller` (`undefined`: it runs without a task). */
  async of(
    name: string,
    caller: string,
    list: ListTools,
    extra: unknown,
  ): Promise<"optional" | "required" | undefined> {
    let entry = this.#byCaller.get(caller)
    if (entry === undefined || Date.now() - entry.at > SUPPORT_TTL_MS) {
      if (this.#byCaller.size > 1024) this.#byCaller.clear()
      const made: { at: number; tools: Promise<Map<string, string>>; settled?: Map<string, string> } = {
        at: Date.now(),
        tools: listSupport(list, extra),
      }
      made.tools.then(
        (tools) => {
          made.settled = tools
        },
        () => {
          if (this.#byCaller.get(caller) === made) this.#byCaller.delete(caller)
        },
      )
      this.#byCaller.set(caller, made)
      entry = made
    }
    const support = (await entry.tools.catch(() => new Map<string, string>())).get(name)
    return support === "optional" || support === "required" ? support : undefined
  }

  clear(): void {
    this.#byCaller.clear()
  }
}

const listSupport = async (list: ListTools, extra: unknown): Promise<Map<string, string>> => {
  const out = new Map<string, string>()
  let cursor: unknown
  for (let page = 0; page < 100; page++) {
    const listed = await list(typeof cursor === "string" ? { cursor } : {}, extra)
    for (const tool of Array.isArray(listed.tools) ? listed.tools : [])
      if (isObject(tool) && isObject(tool.execution) && typeof tool.execution.taskSupport === "string")
        out.set(String(tool.name), tool.execution.taskSupport)
    cursor = listed.nextCursor
    if (typeof cursor !== "string") break
  }
  return out
}

/** The task methods this extension serves (`tasks/result` and `tasks/list` were removed by SEP-2663). */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"])

/** What a call ended with, for its task. */
export type TaskOutcome =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | { readonly ok: false; readonly error: TaskError }

/**
 * One `tools/call` that may become a task: its own controller (the HTTP request ending does not stop a
 * task), the client requests it may make, and the race between finishing and becoming a task.
 */
export class TaskCall {
  readonly controller = new CallController()
  readonly client: ClientRequests
  #task: LocalTask | undefined
  #handle: string | undefined
  /** A before-task request went to the client as a multi round-trip input request: no task now. */
  #mrtr = false
  #becomeTask: (() => void) | undefined
  /** Where the call's state lives, when its tool bound it before the call became a task. */
  #stateReference: string | undefined
  /** A reference the tool promised: the timer does not make the task before it settles. */
  #pendingReference: Promise<void> | undefined
  /** The timer fired while a reference was pending: make the task once it settles. */
  #taskWanted = false
  /** Offered to the tool in its context metadata ({@link TASK_STATE_KEY}). */
  readonly binding: TaskStateBinding = {
    bind: (reference) => {
      if (this.#task !== undefined) return
      const take = (text: unknown) => {
        if (this.#task === undefined && typeof text === "string" && text.length <= 512)
          this.#stateReference = text
      }
      if (typeof reference === "string") return take(reference)
      const pending: Promise<void> = Promise.resolve(reference)
        .then(take, () => {})
        .finally(() => {
          if (this.#pendingReference !== pending) return
          this.#pendingReference = undefined
          if (this.#taskWanted) this.#becomeTaskNow()
        })
      this.#pendingReference = pending
    },
  }

  constructor(
    private readonly host: TaskHost,
    private readonly caller: string,
    private readonly tool: string,
    private readonly required: boolean,
    private readonly round: InputRound,
    capabilities: Readonly<Record<string, unknown>>,
    /** `false` when the call may not become a task of this server now (e.g. an upstream's task is relayed). */
    private readonly mayBecomeTask?: () => boolean,
  ) {
    const via =
      (
        capability: string,
        method: string,
        mrtr:
          | ((p: Readonly<Record<string, unknown>>) => Promise<Readonly<Record<string, unknown>>>)
          | undefined,
      ) =>
      (params: Readonly<Record<string, unknown>>): Promise<Readonly<Record<string, unknown>>> => {
        const meta = isObject(params._meta) ? params._meta : undefined
        const beforeTask = this.#task === undefined && meta?.[BEFORE_TASK_META_KEY] === true
        if (mrtr !== undefined && (beforeTask || !isObject(capabilities[capability]))) {
          // the round records a missing capability, or answers from the state, or asks (the call stops)
          const asked = mrtr(params)
          if (this.round.needsInput) this.#mrtr = true
          return asked
        }
        const ask = () => {
          if (!this.#becomeTaskNow(true)) return Promise.reject(new Error("the call cannot become a task"))
          return this.host.local.ask(this.#task!, method, params) as Promise<
            Readonly<Record<string, unknown>>
          >
        }
        // a promised reference is awaited, so the task made for this request carries it
        return this.#pendingReference === undefined ? ask() : this.#pendingReference.then(ask)
      }
    this.client = {
      elicitInput: via("elicitation", "elicitation/create", round.client.elicitInput),
      createMessage: via("sampling", "sampling/createMessage", round.client.createMessage),
    }
  }

  /**
   * Makes the task now (the call is going on); `false` when it cannot be one. Unless `now`, a reference
   * the tool promised is waited for first (the task is made when it settles).
   */
  #becomeTaskNow(now = false): boolean {
    if (this.#task !== undefined) return true
    if (this.#mrtr || this.mayBecomeTask?.() === false) return false
    if (!now && this.#pendingReference !== undefined) {
      this.#taskWanted = true
      return false
    }
    const made = this.host.create(this.caller, this.tool, this.controller, this.#stateReference)
    this.#task = made.task
    this.#handle = made.handle
    this.#becomeTask?.()
    return true
  }

  /**
   * Runs the call: `{ task }` (a `CreateTaskResult`) once it becomes a task (the call goes on, its
   * outcome recorded by `outcome`), or `{ done }` with its own result when it finished first.
   */
  async settle<T>(
    run: Promise<T>,
    outcome: (settled: { value: T } | { error: unknown }) => TaskOutcome,
    requestSignal: AbortSignal,
  ): Promise<{ task: Record<string, unknown> } | { done: T }> {
    const onRequestGone = () => {
      if (this.#task === undefined) this.controller.cancel(requestSignal.reason)
    }
    requestSignal.addEventListener("abort", onRequestGone, { once: true })
    const becameTask = new Promise<"task">((resolve) => {
      this.#becomeTask = () => resolve("task")
      if (this.#task !== undefined) resolve("task")
    })
    const timer = setTimeout(() => this.#becomeTaskNow(), this.host.immediateMs)
    const finished = run.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    try {
      const first = await Promise.race([finished, becameTask])
      if (first !== "task") {
        // finished before becoming a task: a required tool still answers with one, already terminal
        if (!this.required || this.#mrtr || Object.keys(this.round.missing).length > 0 || "error" in first) {
          if ("error" in first) throw first.error
          return { done: first.value }
        }
        if (!this.#becomeTaskNow(true)) return { done: first.value }
      }
      const task = this.#task!
      void finished.then((settled) => {
        const out = outcome(settled)
        if (out.ok) this.host.local.complete(task, out.result)
        else this.host.local.fail(task, out.error)
      })
      if (first !== "task") {
        const out = outcome(first)
        if (out.ok) this.host.local.complete(task, out.result)
        else this.host.local.fail(task, out.error)
      }
      const state = await this.host.local.get(task.claims, this.#handle!)
      if (typeof state === "string") throw new Error("a task just made is not held")
      const { inputRequests: _i, result: _r, error: _e, ...seed } = state
      return { task: { resultType: "task", ...seed } }
    } finally {
      clearTimeout(timer)
      // a reference settling after the call was answered makes no task
      this.#taskWanted = false
      requestSignal.removeEventListener("abort", onRequestGone)
    }
  }
}

/**
 * The tasks of one server: handles signed with the server's secret, the in-memory tasks of this replica,
 * and any other {@link TaskSource}s; serves `tasks/get`, `tasks/update` and `tasks/cancel`.
 */
export class TaskHost {
  readonly handles: TaskHandles
  readonly local: LocalTasks
  readonly immediateMs: number
  /** Which tools may run as tasks, per caller. */
  readonly support = new TaskSupport()
  readonly #sources: TaskSource[]
  readonly #ttlMs: number
  readonly #maxActive: number
  readonly #now: () => number

  constructor(secret: string | Uint8Array | undefined, options: TaskHostOptions = {}) {
    this.#now = options.now ?? Date.now
    this.handles = new TaskHandles(secret, { now: this.#now })
    this.local = new LocalTasks({
      now: this.#now,
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    })
    this.#sources = [this.local]
    this.#ttlMs = options.ttlMs ?? 60 * 60_000
    this.immediateMs = options.immediateMs ?? 250
    this.#maxActive = options.maxActivePerCaller ?? 64
  }

  /** Adds a source of tasks (asked after the ones before it). */
  addSource(source: TaskSource): void {
    this.#sources.push(source)
  }

  /** Whether `caller` may start another task. */
  canStart(caller: string): boolean {
    this.local.sweep()
    return this.local.active(caller) < this.#maxActive
  }

  /**
   * A new in-memory task of a call running under `controller`; `source` names where its state also
   * lives (for the other replicas' sources).
   */
  create(
    caller: string,
    tool: string,
    controller: CallController,
    source?: string,
  ): { task: LocalTask; handle: string } {
    const { handle, claims } = this.handles.sign(caller, tool, this.#now() + this.#ttlMs, source)
    return { task: this.local.add(claims, controller), handle }
  }

  /**
   * A handle for a task another {@link TaskSource} holds (e.g. an upstream server's task a gateway
   * relays), naming it by `source`; that source answers for it, from `claims.s`.
   */
  issue(caller: string, tool: string, source: string, ttlMs: number = this.#ttlMs): string {
    return this.handles.sign(caller, tool, this.#now() + ttlMs, source).handle
  }

  /**
   * A `tools/call` of a tool listed with `execution.taskSupport`, from a client that declared the
   * extension, run as a call that may become a task; `undefined` when it runs as any other call (no
   * support, no extension, or the caller's task limit reached). A tool requiring a task, called by a
   * client without the extension, is `-32021`. The call gets its own controller (the request ending
   * does not stop a task) and client hooks that park its requests on the task; progress and log
   * messages go on the request's stream until it is answered.
   */
  async maybeTask(call: {
    readonly name: string
    readonly caller: string
    readonly round: InputRound
    readonly capabilities: Readonly<Record<string, unknown>>
    /** The request's handler `extra` (with its controller and modern request). */
    readonly extra: Record<string | symbol, unknown>
    readonly listTools: ListTools
    readonly run: (extra: Record<string | symbol, unknown>) => Promise<Record<string, unknown>>
    /** The JSON-RPC error of a failed call. */
    readonly errorOf: (error: unknown) => TaskError
    /** See {@link TaskCall}: `false` keeps the call from becoming a task of this server. */
    readonly mayBecomeTask?: () => boolean
  }): Promise<{ task: Record<string, unknown> } | { done: Record<string, unknown> } | undefined> {
    const { round, extra } = call
    const support = await this.support.of(call.name, call.caller, call.listTools, extra)
    if (support === undefined) return undefined
    const declared = declaresTasks(call.capabilities)
    if (!declared && support === "required")
      throw missingTasksCapability(`the tool ${JSON.stringify(call.name)}`)
    if (!declared || !this.canStart(call.caller)) return undefined
    const requestController = extra[CALL_CONTROLLER] as CallController
    const task = this.call(
      call.caller,
      call.name,
      support === "required",
      round,
      call.capabilities,
      call.mayBecomeTask,
    )
    let answered = false
    const modern = extra[MODERN_REQUEST] as ModernRequest
    const send = extra.sendNotification as (n: Record<string, unknown>) => Promise<void>
    const taskExtra = {
      ...extra,
      // (what a stateless request's extra has on its prototype)
      requestInfo: extra.requestInfo,
      sendRequest: extra.sendRequest,
      signal: task.controller.signal,
      sendNotification: async (n: Record<string, unknown>) => {
        if (!answered) await send(n)
      },
      [CALL_CONTROLLER]: task.controller,
      [MODERN_REQUEST]: {
        ...modern,
        client: task.client,
        metadataFor: (toolId: string) => ({
          ...modern.metadataFor?.(toolId),
          [TASK_STATE_KEY]: task.binding,
        }),
      },
    }
    const outcome = (settled: { value: Record<string, unknown> } | { error: unknown }): TaskOutcome => {
      if (Object.keys(round.missing).length > 0)
        return {
          ok: false,
          error: {
            code: ModernErrorCode.MissingRequiredClientCapability,
            message: `Missing required client capability: ${Object.keys(round.missing).join(", ")}`,
            data: { requiredCapabilities: round.missing },
          },
        }
      if ("value" in settled) return { ok: true, result: settled.value }
      const { code, message, data } = call.errorOf(settled.error)
      return { ok: false, error: { code, message, ...(data !== undefined ? { data } : {}) } }
    }
    const settled = await task.settle(call.run(taskExtra), outcome, requestController.signal)
    answered = true
    return settled
  }

  /**
   * Whether a `tools/call` of `name` surely runs as any other call, so {@link TaskHost.maybeTask} need
   * not be asked: the client did not declare the extension and the tool's support for `caller` is known
   * (cached) not to be `required`. Synchronous: a stateless call of a client without the extension
   * costs no lookup.
   */
  runsWithoutTask(name: string, caller: string, capabilities: Readonly<Record<string, unknown>>): boolean {
    if (declaresTasks(capabilities)) return false
    const support = this.support.cached(name, caller)
    return support !== undefined && support !== "required"
  }

  /** A call that may become a task. */
  call(
    caller: string,
    tool: string,
    required: boolean,
    round: InputRound,
    capabilities: Readonly<Record<string, unknown>>,
    mayBecomeTask?: () => boolean,
  ): TaskCall {
    return new TaskCall(this, caller, tool, required, round, capabilities, mayBecomeTask)
  }

  /** Serves `tasks/get`, `tasks/update` or `tasks/cancel` (the method checked by the caller). */
  async serve(
    method: string,
    params: Readonly<Record<string, unknown>>,
    capabilities: Readonly<Record<string, unknown>>,
    caller: string,
  ): Promise<Record<string, unknown>> {
    if (!declaresTasks(capabilities)) throw missingTasksCapability(method)
    const handle = params.taskId
    if (typeof handle !== "string")
      throw new ModernProtocolError(
        ModernErrorCode.InvalidParams,
        `Invalid params: ${method} needs params.taskId`,
      )
    const verdict = this.handles.verify(handle, caller)
    if (!verdict.ok) throw invalidTask(verdict.reason)
    if (method === "tasks/update" && !isObject(params.inputResponses))
      throw new ModernProtocolError(
        ModernErrorCode.InvalidParams,
        "Invalid params: tasks/update needs params.inputResponses (an object)",
      )
    // A task whose state is bound elsewhere (a durable run) is answered from there on every replica, the
    // one running the call included, so they all tell the same; this process's memory is the fallback.
    const bound = verdict.claims.s !== undefined
    const sources = bound ? [...this.#sources.slice(1), this.local] : this.#sources
    if (bound && method === "tasks/cancel") await this.local.cancel(verdict.claims)
    for (const source of sources) {
      const answer =
        method === "tasks/get"
          ? await source.get(verdict.claims, handle)
          : method === "tasks/update"
            ? await source.update(verdict.claims, params.inputResponses as Record<string, unknown>)
            : await source.cancel(verdict.claims)
      if (answer === "unknown") continue
      if (answer === "mismatch") throw invalidTask("tool")
      return answer === "ok" ? { resultType: "complete" } : { resultType: "complete", ...answer }
    }
    throw invalidTask("unknown")
  }
}
