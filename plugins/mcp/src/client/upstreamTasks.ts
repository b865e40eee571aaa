/**
 * Tasks from upstream servers (the MCP tasks extension, `io.modelcontextprotocol/tasks`), client side: a
 * modern server that advertises the extension in `server/discover` may answer `tools/call` with a task
 * handle (`resultType: "task"`) instead of the result. The backend then polls `tasks/get` (at the task's
 * `pollIntervalMs`) until the task ends, answers the task's `inputRequests` through the caller's hooks
 * with `tasks/update`, and sends `tasks/cancel` when the caller gives up; the call is never sent again.
 * {@link upstreamTasksOf} relays get/update/cancel of a backend's tasks by their upstream id, for a
 * serving side that hands its own clients the task instead of waiting for it.
 *
 * @since 0.2.0
 */
import type { Client } from "@modelcontextprotocol/client"
import type { Progress as McpProgress } from "@modelcontextprotocol/server"
import {
  BackendUnavailable,
  Cancelled,
  type ExecutionContext,
  ExecutionFailed,
  isToolError,
  Timeout,
  type ToolError,
} from "@toolplane/foundation"
import { isUnreachable, mcpFailureToToolError } from "../errors.js"
import type { McpConnection, SentRequest } from "./connection.js"
import { OWNED_META } from "./era.js"
import { TASKS_EXTENSION } from "./tasksExtension.js"

export { TASKS_EXTENSION }

/**
 * The status of an upstream task; `completed`, `failed` and `cancelled` are terminal.
 *
 * @since 0.2.0
 */
export type UpstreamTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * An upstream task as `tasks/get` (or the `CreateTaskResult`) described it, checked for shape.
 *
 * @since 0.2.0
 */
export interface UpstreamTask {
  /** The upstream's id of the task (a bearer secret at the upstream: never show it to other callers). */
  readonly taskId: string
  readonly status: UpstreamTaskStatus
  readonly statusMessage?: string
  readonly createdAt?: string
  readonly lastUpdatedAt?: string
  /** Lifetime from `createdAt` in ms; `null` for unlimited. */
  readonly ttlMs: number | null
  /** The upstream's suggested polling interval. */
  readonly pollIntervalMs?: number
  /** Outstanding requests to the client (`input_required`), by the upstream's key. */
  readonly inputRequests?: Readonly<Record<string, unknown>>
  /** The final result of the call (`completed`). */
  readonly result?: Readonly<Record<string, unknown>>
  /** The JSON-RPC error the call failed with (`failed`). */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/**
 * The `_meta` key of a backend result that hands over an upstream task instead of waiting for it (see
 * {@link UPSTREAM_TASK_HANDOFF_KEY}); its value is an {@link UpstreamTaskHandoff}.
 *
 * @since 0.2.0
 */
export const UPSTREAM_TASK_META_KEY = "toolplane.dev/upstreamTask"

/**
 * The `ExecutionContext.metadata` key with which a serving side that relays tasks asks an MCP backend to
 * return an upstream's task handle instead of polling it to the end (value `true`, or an
 * {@link UpstreamTaskHandoffOffer} that limits it to one tool's call). Only the serving side sets it; it
 * is never taken from a client's `_meta`.
 *
 * @since 0.2.0
 */
export const UPSTREAM_TASK_HANDOFF_KEY = "toolplane.dev/upstreamTaskHandoff"

/**
 * What a serving side puts under {@link UPSTREAM_TASK_HANDOFF_KEY} instead of `true` to offer the handoff
 * to one call only: the backend call of `toolId` (not the inner calls of a composite or of code mode,
 * which share the context's metadata), at most once, and only while the serving side has not made a
 * task of its own for the call. A backend that will hand over an upstream task claims it before sending
 * the call; the serving side then trusts a handed-over result only from the backend that claimed it.
 *
 * @since 0.2.0
 */
export interface UpstreamTaskHandoffOffer {
  /** The canonical id of the one tool the offer is for. */
  readonly toolId: string
  /** Takes the offer for `backend`: `true` once, `false` when already taken or withdrawn. */
  claim(backend: string): boolean
}

const isOffer = (value: unknown): value is UpstreamTaskHandoffOffer =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as UpstreamTaskHandoffOffer).toolId === "string" &&
  typeof (value as UpstreamTaskHandoffOffer).claim === "function"

/**
 * Whether a call of `toolId` on `backend` may hand over an upstream task: `metadata[UPSTREAM_TASK_HANDOFF_KEY]`
 * is `true`, or an {@link UpstreamTaskHandoffOffer} for that tool that this call claims now.
 *
 * @internal
 * @since 0.2.0
 */
export const claimHandoff = (
  metadata: Readonly<Record<string, unknown>>,
  backend: string,
  toolId: string,
): boolean => {
  const offered = metadata[UPSTREAM_TASK_HANDOFF_KEY]
  return offered === true || (isOffer(offered) && offered.toolId === toolId && offered.claim(backend))
}

/**
 * What a handed-over result carries under {@link UPSTREAM_TASK_META_KEY}: the owning backend and the task.
 *
 * @since 0.2.0
 */
export interface UpstreamTaskHandoff {
  readonly backend: string
  readonly task: UpstreamTask
}

/**
 * Options of one relayed task request.
 *
 * @since 0.2.0
 */
export interface UpstreamTaskRequestOptions {
  /** Aborts the request (the upstream gets `notifications/cancelled` for it). */
  readonly signal?: AbortSignal
  /** Default: the backend's health timeout. */
  readonly timeoutMs?: number
}

/**
 * Get, update or cancel a task of one backend by its upstream id: what a serving side that wrapped the
 * upstream's handle in its own (signed, caller-bound) handle calls, on any replica, with the id it
 * verified. Failures are typed: {@link BackendUnavailable} (not connected, or the upstream does not speak
 * the tasks extension on this connection), {@link ExecutionFailed} naming the backend and task (an unknown
 * or expired task, any other JSON-RPC error), {@link Timeout}.
 *
 * @since 0.2.0
 */
export interface UpstreamTaskRelay {
  /** The backend's name (the namespace of its tools). */
  readonly backend: string
  /** Whether the current connection negotiated the tasks extension. */
  accepts(): boolean
  /** `tasks/get`: the task's current state (its `result` or `error` once it ended). */
  get(taskId: string, options?: UpstreamTaskRequestOptions): Promise<UpstreamTask>
  /** `tasks/update`: answers to (some of) the task's outstanding `inputRequests`, by their keys. */
  update(
    taskId: string,
    inputResponses: Readonly<Record<string, unknown>>,
    options?: UpstreamTaskRequestOptions,
  ): Promise<void>
  /** `tasks/cancel`: asks the upstream to stop the task (cooperative: it may still end otherwise). */
  cancel(taskId: string, options?: UpstreamTaskRequestOptions): Promise<void>
}

const RELAY: unique symbol = Symbol.for("@toolplane/plugin-mcp/upstreamTasks") as never

/**
 * Attaches a relay to a backend (kept by wrappers that spread it).
 *
 * @internal
 * @since 0.2.0
 */
export const withUpstreamTasks = <B extends object>(backend: B, relay: UpstreamTaskRelay): B => {
  Object.defineProperty(backend, RELAY, { value: relay, enumerable: true, configurable: true })
  return backend
}

/**
 * The {@link UpstreamTaskRelay} of an MCP backend, or `undefined` for another kind of backend.
 *
 * @example
 * ```ts
 * const backend = mcpBackend({ name: "ci", http: { url: "http://127.0.0.1:3000/mcp" } })
 * const relay = upstreamTasksOf(backend)
 * const task = await relay?.get("786512e2-9e0d-44bd-8f29-789f320fe840")
 * ```
 * @since 0.2.0
 */
export const upstreamTasksOf = (backend: object): UpstreamTaskRelay | undefined =>
  (backend as { [RELAY]?: UpstreamTaskRelay })[RELAY]

type Json = Record<string, unknown>

const STATUSES: ReadonlySet<string> = new Set([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
])
/** Longer upstream ids are refused (an id travels in a header and in the serving side's handle). */
const MAX_TASK_ID_LENGTH = 512
/** Polling bounds: an upstream's interval is honoured within them. */
const MIN_POLL_MS = 10
const MAX_POLL_MS = 30_000
/** The interval when the upstream suggests none. */
const DEFAULT_POLL_MS = 500
/** Polls in a row that may fail on an unreachable upstream before the call fails (the task lives on). */
const MAX_UNREACHABLE_POLLS = 3

/** Upstream text in an error message is cut at this many characters. */
const MAX_MESSAGE_LENGTH = 500

const clip = (text: string): string =>
  text.length <= MAX_MESSAGE_LENGTH ? text : `${text.slice(0, MAX_MESSAGE_LENGTH)}…`

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a `tools/call` result is a task handle (`resultType: "task"`).
 *
 * @internal
 * @since 0.2.0
 */
export const isTaskHandle = (raw: unknown): boolean => isObject(raw) && raw.resultType === "task"

/**
 * A task object checked for shape, or why it is not one (a string).
 *
 * @internal
 * @since 0.2.0
 */
export const parseTask = (raw: unknown, created = false): UpstreamTask | string => {
  if (!isObject(raw)) return "not an object"
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = raw
  if (typeof taskId !== "string" || taskId === "" || taskId.length > MAX_TASK_ID_LENGTH)
    return "no valid taskId"
  if (typeof status !== "string" || !STATUSES.has(status)) return `unknown status ${JSON.stringify(status)}`
  const task: { -readonly [K in keyof UpstreamTask]: UpstreamTask[K] } = {
    taskId,
    status: status as UpstreamTaskStatus,
    ttlMs: typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs >= 0 ? ttlMs : null,
  }
  if (typeof statusMessage === "string") task.statusMessage = statusMessage
  if (typeof createdAt === "string") task.createdAt = createdAt
  if (typeof lastUpdatedAt === "string") task.lastUpdatedAt = lastUpdatedAt
  if (typeof pollIntervalMs === "number" && Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0)
    task.pollIntervalMs = pollIntervalMs
  // A CreateTaskResult carries none of inputRequests, result or error (they come with tasks/get).
  if (created) return task
  if (task.status === "input_required") {
    if (!isObject(raw.inputRequests)) return "input_required without inputRequests"
    task.inputRequests = raw.inputRequests
  }
  if (task.status === "completed") {
    if (!isObject(raw.result)) return "completed without a result"
    task.result = raw.result
  }
  if (task.status === "failed") {
    const error = isObject(raw.error) ? raw.error : {}
    task.error = {
      code: typeof error.code === "number" ? error.code : -32603,
      message: typeof error.message === "string" ? error.message : (task.statusMessage ?? "no error given"),
      ...(error.data !== undefined ? { data: error.data } : {}),
    }
  }
  return task
}

/** One `tasks/*` request on the connection, settled once, with its own timeout. */
class TaskRequest implements SentRequest {
  requestId = -1
  progressToken = ""
  viaClient: AbortController | undefined = undefined
  #settle: ((error: unknown, result?: unknown) => void) | undefined

  constructor(settle: (error: unknown, result?: unknown) => void) {
    this.#settle = settle
  }

  resolveRequest(result: unknown): void {
    const settle = this.#settle
    this.#settle = undefined
    settle?.(undefined, result)
  }

  rejectRequest(error: unknown): void {
    const settle = this.#settle
    this.#settle = undefined
    settle?.(error ?? new Error("request failed"))
  }

  progress(_params: McpProgress): void {}
}

/**
 * Sends one `tasks/get`, `tasks/update` or `tasks/cancel` and resolves with its raw result.
 *
 * @internal
 * @since 0.2.0
 */
export const sendTaskRequest = (
  connection: McpConnection,
  client: Client,
  method: "tasks/get" | "tasks/update" | "tasks/cancel",
  params: Json,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<unknown> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const onAbort = () => connection.cancel(request, signal!.reason)
    const request = new TaskRequest((error, result) => {
      clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
      if (error === undefined) resolve(result)
      else reject(error)
    })
    timer = setTimeout(
      () => connection.cancel(request, new Error(`${method} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    )
    signal?.addEventListener("abort", onAbort, { once: true })
    connection.send(client, method, { ...params, _meta: { [OWNED_META]: true } }, request)
  })

/** What {@link awaitUpstreamTask} needs of the backend and the call. */
export interface TaskWait {
  readonly connection: McpConnection
  /** The client the call went out on (polls after a reconnection use the connection's new one). */
  readonly client: Client
  readonly backend: string
  readonly toolId: string
  readonly ctx: ExecutionContext
  /** Timeout of each `tasks/*` request. */
  readonly requestTimeoutMs: number
  /**
   * Without a deadline: how long a task without a TTL may go without any change (status, message, update
   * time) before the call times out (and the task is cancelled). `undefined` under a deadline.
   */
  readonly idleTimeoutMs: number | undefined
  /** Answers input requests through the caller's hooks, by key. */
  readonly answer: (inputRequests: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown>>
}

const invalid = (wait: TaskWait, taskId: string | undefined, why: string): ExecutionFailed =>
  new ExecutionFailed({
    toolId: wait.toolId,
    cause: {
      name: "UpstreamTaskInvalid",
      message: `${wait.backend} ${taskId === undefined ? "returned an invalid task" : `task ${taskId} is invalid`}: ${why}`,
    },
    retryable: false,
  })

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) {
      resolve()
      return
    }
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener("abort", done, { once: true })
  })

/**
 * The connection's client once it is connected again (at once when it still is), or a rejection when
 * the caller gives up or `withinMs` passes first.
 */
const reconnected = (wait: TaskWait, withinMs: number): Promise<Client> =>
  new Promise((resolve, reject) => {
    const signal = wait.ctx.signal
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => reject(signal.reason)
    const timer = setTimeout(
      () =>
        reject(
          new BackendUnavailable({
            backend: wait.backend,
            toolId: wait.toolId,
            reason: "not reconnected in time to follow its task",
          }),
        ),
      Math.max(0, withinMs),
    )
    signal.addEventListener("abort", onAbort, { once: true })
    wait.connection
      .connect()
      .then(resolve, reject)
      .finally(() => {
        clearTimeout(timer)
        signal.removeEventListener("abort", onAbort)
      })
  })

/**
 * Waits for the task a `tools/call` was answered with: polls `tasks/get`, answers input with
 * `tasks/update`, and resolves with the task's final result (the call's raw result). The caller's
 * cancellation, the deadline, an idle task and an expired TTL send `tasks/cancel` (best effort, not
 * awaited). Fails typed: a failed task is {@link ExecutionFailed} naming the backend and task (not
 * retryable: the call is never sent again).
 *
 * @internal
 * @since 0.2.0
 */
export const awaitUpstreamTask = async (wait: TaskWait, handle: unknown): Promise<unknown> => {
  const { ctx, backend, toolId } = wait
  // A task to a client that did not declare the extension is an invalid answer (never followed).
  if (!wait.connection.tasks)
    throw invalid(wait, undefined, "a task was returned without the tasks extension")
  const created = parseTask(handle, true)
  if (typeof created === "string") throw invalid(wait, undefined, created)
  // What the handle leaves out (a result, an error, the input requests) comes with the first poll.
  const first: UpstreamTask = created.status === "working" ? created : { ...created, status: "working" }
  const taskId = first.taskId
  let cancelSent = false
  const cancelUpstream = () => {
    if (cancelSent) return
    cancelSent = true
    sendTaskRequest(wait.connection, client, "tasks/cancel", { taskId }, wait.requestTimeoutMs).catch(
      () => {},
    )
  }
  const failed = (name: string, message: string) =>
    new ExecutionFailed({
      toolId,
      cause: { name, message: `${backend} task ${taskId} ${message}` },
      retryable: false,
    })
  const startedAt = Date.now()
  let client = wait.client
  let unreachable = 0
  const answered = new Set<string>()
  let task = first
  let lastChange = startedAt
  let changes = 0
  try {
    for (;;) {
      switch (task.status) {
        case "completed":
          return task.result
        case "failed":
          throw failed(
            "UpstreamTaskFailed",
            `failed: ${clip(task.error!.message)} (code ${task.error!.code})${task.statusMessage !== undefined && task.statusMessage !== task.error!.message ? ` (${clip(task.statusMessage)})` : ""}`,
          )
        case "cancelled":
          throw failed(
            "UpstreamTaskCancelled",
            `was cancelled${task.statusMessage ? `: ${clip(task.statusMessage)}` : ""}`,
          )
        case "input_required": {
          // Keys are unique over a task's life: one already answered is shown again until the upstream
          // catches up, and is not asked twice.
          const open = Object.entries(task.inputRequests!).filter(([key]) => !answered.has(key))
          if (open.length > 0) {
            for (const [key] of open) answered.add(key)
            const inputResponses = await wait.answer(Object.fromEntries(open))
            if (ctx.signal.aborted) break
            await sendTaskRequest(
              wait.connection,
              client,
              "tasks/update",
              { taskId, inputResponses },
              wait.requestTimeoutMs,
              ctx.signal,
            )
            // Time spent by a human is not the task being idle.
            lastChange = Date.now()
          }
          break
        }
        case "working":
          break
      }
      const now = Date.now()
      if (ctx.deadline !== undefined && now >= ctx.deadline) {
        throw new Timeout({ toolId, timeoutMs: Math.max(0, ctx.deadline - startedAt) })
      }
      // A task's TTL is the upstream's own word on how long it may take; one without (unlimited) may not go
      // without a change for longer than the call timeout.
      if (task.ttlMs === null && wait.idleTimeoutMs !== undefined && now - lastChange >= wait.idleTimeoutMs) {
        throw new Timeout({ toolId, timeoutMs: wait.idleTimeoutMs })
      }
      // Counted from when the handle arrived (never before `createdAt`): no clock skew between the two hosts.
      if (task.ttlMs !== null && now > startedAt + task.ttlMs) {
        throw failed("UpstreamTaskExpired", `outlived its ttlMs of ${task.ttlMs} ms`)
      }
      let delay = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs ?? DEFAULT_POLL_MS))
      if (ctx.deadline !== undefined) delay = Math.min(delay, Math.max(0, ctx.deadline - now))
      await sleep(delay, ctx.signal)
      if (ctx.signal.aborted) break
      let raw: unknown
      try {
        raw = await sendTaskRequest(
          wait.connection,
          client,
          "tasks/get",
          { taskId },
          wait.requestTimeoutMs,
          ctx.signal,
        )
        unreachable = 0
      } catch (error) {
        // A task outlives its connection: a poll lost to a dropped request or a reconnection is made
        // again (on the connection's current client), a few times in a row at most.
        if (ctx.signal.aborted || !isUnreachable(error) || ++unreachable > MAX_UNREACHABLE_POLLS) throw error
        wait.connection.suspect(error)
        client = await reconnected(
          wait,
          ctx.deadline !== undefined
            ? ctx.deadline - Date.now()
            : (wait.idleTimeoutMs ?? wait.requestTimeoutMs),
        )
        if (!wait.connection.tasks)
          throw invalid(wait, taskId, "the upstream no longer speaks the tasks extension")
        continue
      }
      const next = parseTask(raw)
      if (typeof next === "string") throw invalid(wait, taskId, next)
      if (next.taskId !== taskId) throw invalid(wait, taskId, "tasks/get answered for another task")
      if (
        next.status !== task.status ||
        next.statusMessage !== task.statusMessage ||
        next.lastUpdatedAt !== task.lastUpdatedAt
      ) {
        lastChange = Date.now()
        if (next.status === "working" || next.statusMessage !== undefined)
          ctx.reportProgress({
            progress: ++changes,
            ...(next.statusMessage ? { message: next.statusMessage } : {}),
          })
      }
      task = next
    }
    // The caller gave up: handled below.
    throw ctx.signal.reason
  } catch (error) {
    // Whatever ends the wait before the task ended (the caller, a timeout, input the caller cannot give, an
    // invalid answer) tells the upstream to stop the task; a lost connection cannot.
    const ended = task.status === "completed" || task.status === "failed" || task.status === "cancelled"
    if (!ended && !(isToolError(error) && error._tag === "BackendUnavailable")) cancelUpstream()
    if (ctx.signal.aborted) {
      const reason = ctx.signal.reason
      throw isToolError(reason)
        ? reason
        : new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
    }
    if (isToolError(error)) throw error
    const typed: ToolError = mcpFailureToToolError(error, { backend, toolId })
    if (typed._tag === "BackendUnavailable") throw typed
    throw failed("UpstreamTaskError", `could not be followed: ${clip(typed.message)}`)
  }
}

/**
 * The `tools/call` result that hands a task over (see {@link UPSTREAM_TASK_HANDOFF_KEY}): one text block
 * saying so, and the task under {@link UPSTREAM_TASK_META_KEY} in `_meta`.
 *
 * @internal
 * @since 0.2.0
 */
export const handoffResult = (backend: string, toolId: string, handle: unknown): Json => {
  const task = parseTask(handle, true)
  if (typeof task === "string")
    throw new ExecutionFailed({
      toolId,
      cause: { name: "UpstreamTaskInvalid", message: `${backend} returned an invalid task: ${task}` },
      retryable: false,
    })
  const handoff: UpstreamTaskHandoff = { backend, task }
  return {
    content: [{ type: "text", text: `${toolId} continues as a task (${task.status})` }],
    _meta: { [UPSTREAM_TASK_META_KEY]: handoff },
  }
}

/**
 * The relay of one backend's connection.
 *
 * @internal
 * @since 0.2.0
 */
export const makeUpstreamTaskRelay = (
  backend: string,
  connection: McpConnection,
  defaultTimeoutMs: number,
): UpstreamTaskRelay => {
  const run = async (
    method: "tasks/get" | "tasks/update" | "tasks/cancel",
    taskId: string,
    params: Json,
    options: UpstreamTaskRequestOptions | undefined,
  ): Promise<unknown> => {
    const toolId = `${backend}/tasks`
    if (typeof taskId !== "string" || taskId === "" || taskId.length > MAX_TASK_ID_LENGTH)
      throw new ExecutionFailed({
        toolId,
        cause: { name: "UpstreamTaskInvalid", message: `${backend}: not a task id` },
        retryable: false,
      })
    const client = await connection.connect({ failFast: true })
    if (!connection.tasks)
      throw new BackendUnavailable({
        backend,
        reason: `${method}: the upstream does not speak the tasks extension`,
      })
    try {
      return await sendTaskRequest(
        connection,
        client,
        method,
        { ...params, taskId },
        options?.timeoutMs ?? defaultTimeoutMs,
        options?.signal,
      )
    } catch (error) {
      const typed = mcpFailureToToolError(error, { backend, toolId })
      if (typed._tag === "BackendUnavailable" || typed._tag === "Timeout") throw typed
      throw new ExecutionFailed({
        toolId,
        cause: {
          name: "UpstreamTaskError",
          message: `${method} of ${backend} task ${taskId} failed: ${clip(typed.message)}`,
        },
        retryable: false,
      })
    }
  }
  return {
    backend,
    accepts: () => connection.tasks,
    get: async (taskId, options) => {
      const task = parseTask(await run("tasks/get", taskId, {}, options))
      if (typeof task === "string" || task.taskId !== taskId)
        throw new ExecutionFailed({
          toolId: `${backend}/tasks`,
          cause: {
            name: "UpstreamTaskInvalid",
            message: `${backend} task ${taskId} is invalid: ${typeof task === "string" ? task : "answered for another task"}`,
          },
          retryable: false,
        })
      return task
    },
    update: async (taskId, inputResponses, options) => {
      await run("tasks/update", taskId, { inputResponses: { ...inputResponses } }, options)
    },
    cancel: async (taskId, options) => {
      await run("tasks/cancel", taskId, {}, options)
    },
  }
}
