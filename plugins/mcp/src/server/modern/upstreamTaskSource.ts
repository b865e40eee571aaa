/**
 * Upstream tasks relayed by a gateway (the tasks extension, `io.modelcontextprotocol/tasks`): when a client
 * that declared the extension calls a tool of an MCP backend and the upstream answers with a task, the
 * backend hands the task over ({@link UpstreamHandoff}) instead of polling it, and the client gets this
 * server's own signed, caller-bound handle. The handle's source reference names the owning backend and the
 * upstream's task id, encrypted (the upstream id is a bearer secret at the upstream: the client never sees
 * it) and signed with the rest of the handle; {@link UpstreamTaskSource} answers `tasks/get`, `tasks/update`
 * and `tasks/cancel` for such handles through the backend's relay (`upstreamTasksOf`), on any replica that
 * has the backend configured and shares the secret.
 *
 * @internal
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { isToolError } from "@toolplane/foundation"
import {
  UPSTREAM_TASK_HANDOFF_KEY,
  UPSTREAM_TASK_META_KEY,
  type UpstreamTask,
  type UpstreamTaskHandoffOffer,
  type UpstreamTaskRelay,
} from "../../client/upstreamTasks.js"
import { ModernProtocolError } from "./errors.js"
import { ModernErrorCode } from "./protocol.js"
import type { TaskClaims } from "./taskHandles.js"
import type { DetailedTask, TaskInputRequest, TaskSource } from "./taskSource.js"
import type { TaskHost } from "./tasks.js"

/**
 * The relay of a backend by name (`undefined`: no such backend here, or not an MCP backend).
 *
 * @since 0.2.0
 */
export type UpstreamTaskRelays = (backend: string) => UpstreamTaskRelay | undefined

const PREFIX = "up1."
const TERMINAL = new Set(["completed", "failed", "cancelled"])
const MAX_MESSAGE = 500

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const clip = (text: string) => (text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE)}…`)

/** What a handle's source reference says (before encryption). */
interface Reference {
  /** The backend's name. */
  readonly b: string
  /** The upstream's task id. */
  readonly i: string
  /** The ttl the handle was issued with (reported by `tasks/get`). */
  readonly l: number
}

/** The `TaskSource` of relayed upstream tasks. */
export class UpstreamTaskSource implements TaskSource {
  readonly #key: Buffer
  readonly #relays: UpstreamTaskRelays

  constructor(secret: string | Uint8Array | undefined, relays: UpstreamTaskRelays) {
    this.#key = createHmac("sha256", secret === undefined ? randomBytes(32) : Buffer.from(secret))
      .update("toolplane upstream task reference v1")
      .digest()
    this.#relays = relays
  }

  /** The encrypted source reference of an upstream task (AES-256-GCM; the handle signs it too). */
  reference(backend: string, taskId: string, ttlMs: number): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv)
    const body = Buffer.concat([
      cipher.update(JSON.stringify({ b: backend, i: taskId, l: ttlMs } satisfies Reference)),
      cipher.final(),
    ])
    return `${PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`
  }

  #open(source: string | undefined): Reference | undefined {
    if (source === undefined || !source.startsWith(PREFIX)) return undefined
    try {
      const raw = Buffer.from(source.slice(PREFIX.length), "base64url")
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
      const ref = JSON.parse(text) as Reference
      return typeof ref.b === "string" && typeof ref.i === "string" && typeof ref.l === "number"
        ? ref
        : undefined
    } catch {
      return undefined
    }
  }

  /** The reference and its backend's relay, or `undefined` when the handle is not one of ours or the backend is not here. */
  #resolve(claims: TaskClaims): { ref: Reference; relay: UpstreamTaskRelay } | undefined {
    const ref = this.#open(claims.s)
    const relay = ref === undefined ? undefined : this.#relays(ref.b)
    return ref !== undefined && relay !== undefined ? { ref, relay } : undefined
  }

  /** A relay failure as the client sees it: the backend named, the upstream's task id never. */
  #failure(method: string, ref: Reference, error: unknown): ModernProtocolError {
    const tag = isToolError(error) ? error._tag : "Error"
    const text = error instanceof Error ? error.message : String(error)
    return new ModernProtocolError(
      ModernErrorCode.InternalError,
      `${method}: the upstream ${JSON.stringify(ref.b)} could not answer for the task: ${clip(text.split(ref.i).join("<task>"))}`,
      { data: { backend: ref.b, reason: tag } },
    )
  }

  async get(claims: TaskClaims, handle: string): Promise<DetailedTask | "unknown" | "mismatch"> {
    const found = this.#resolve(claims)
    if (found === undefined) return "unknown"
    let task: UpstreamTask
    try {
      task = await found.relay.get(found.ref.i)
    } catch (error) {
      throw this.#failure("tasks/get", found.ref, error)
    }
    return detailed(task, handle, found.ref.l)
  }

  async update(
    claims: TaskClaims,
    inputResponses: Readonly<Record<string, unknown>>,
  ): Promise<"ok" | "unknown" | "mismatch"> {
    const found = this.#resolve(claims)
    if (found === undefined) return "unknown"
    // as for a task of this server: a response must be an object, anything else is left out
    const answers = Object.fromEntries(Object.entries(inputResponses).filter(([, v]) => isObject(v)))
    if (Object.keys(answers).length === 0) return "ok"
    try {
      await found.relay.update(found.ref.i, answers)
    } catch (error) {
      throw this.#failure("tasks/update", found.ref, error)
    }
    return "ok"
  }

  async cancel(claims: TaskClaims): Promise<"ok" | "unknown" | "mismatch"> {
    const found = this.#resolve(claims)
    if (found === undefined) return "unknown"
    try {
      await found.relay.cancel(found.ref.i)
    } catch (error) {
      throw this.#failure("tasks/cancel", found.ref, error)
    }
    return "ok"
  }
}

const positiveInt = (ms: number) => Math.max(1, Math.round(ms))

/** An upstream task as this server's `DetailedTask` (under the gateway's handle). */
const detailed = (task: UpstreamTask, handle: string, ttlMs: number): DetailedTask => {
  const now = new Date().toISOString()
  const inputs: Record<string, TaskInputRequest> = {}
  for (const [key, value] of Object.entries(task.inputRequests ?? {}))
    if (isObject(value) && typeof value.method === "string")
      inputs[key] = { method: value.method, params: isObject(value.params) ? value.params : {} }
  const createdAt = task.createdAt ?? now
  return {
    taskId: handle,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: clip(task.statusMessage) } : {}),
    createdAt,
    lastUpdatedAt: task.lastUpdatedAt ?? createdAt,
    ttlMs,
    ...(!TERMINAL.has(task.status) && task.pollIntervalMs !== undefined
      ? { pollIntervalMs: positiveInt(task.pollIntervalMs) }
      : {}),
    ...(task.status === "input_required" ? { inputRequests: inputs } : {}),
    ...(task.status === "completed" && task.result ? { result: { ...task.result } } : {}),
    ...(task.status === "failed" && task.error
      ? {
          error: {
            code: task.error.code,
            message: clip(task.error.message),
            ...(task.error.data !== undefined ? { data: task.error.data } : {}),
          },
        }
      : {}),
  }
}

/**
 * The handoff of one `tools/call` from a client that declared the tasks extension: the offer put in the
 * call's context metadata (for the called tool only, claimed at most once, withdrawn when this server makes
 * a task of its own for the call), and the turn of a handed-over result into this server's task.
 */
export class UpstreamHandoff {
  #toolId: string | undefined
  #claimedBy: string | undefined
  #withdrawn = false

  /** For `ModernRequest.metadataFor`: the offer, for the tool the call resolved to. */
  readonly metadataFor = (toolId: string): Readonly<Record<string, unknown>> => {
    this.#toolId ??= toolId
    const offer: UpstreamTaskHandoffOffer = {
      toolId: this.#toolId,
      claim: (backend) => {
        if (this.#withdrawn || this.#claimedBy !== undefined) return false
        this.#claimedBy = backend
        return true
      },
    }
    return { [UPSTREAM_TASK_HANDOFF_KEY]: offer }
  }

  /** For `TaskHost.maybeTask`: once claimed the call does not become a task here; otherwise the offer is withdrawn. */
  readonly mayBecomeTask = (): boolean => {
    if (this.#claimedBy !== undefined) return false
    this.#withdrawn = true
    return true
  }

  /**
   * The call's result with the handoff entry taken off, and the `CreateTaskResult` of this server's handle
   * when a backend that claimed the offer handed over its upstream's task (an entry from anywhere else is
   * dropped). Withdraws the offer.
   */
  settle(
    result: Record<string, unknown>,
    relay: {
      readonly host: TaskHost
      readonly source: UpstreamTaskSource
      readonly caller: string
      readonly tool: string
      readonly ttlMs: number
    },
  ): { task: Record<string, unknown> } | { result: Record<string, unknown> } {
    this.#withdrawn = true
    const meta = isObject(result._meta) ? result._meta : undefined
    if (meta === undefined || !Object.hasOwn(meta, UPSTREAM_TASK_META_KEY)) return { result }
    const { [UPSTREAM_TASK_META_KEY]: entry, ...rest } = meta
    const { _meta: _dropped, ...body } = result
    const stripped = Object.keys(rest).length > 0 ? { ...body, _meta: rest } : body
    if (!isObject(entry) || entry.backend !== this.#claimedBy || !isObject(entry.task))
      return { result: stripped }
    const task = entry.task as unknown as UpstreamTask
    if (typeof task.taskId !== "string" || typeof task.status !== "string") return { result: stripped }
    const ttlMs = positiveInt(
      typeof task.ttlMs === "number" ? Math.min(task.ttlMs, relay.ttlMs) : relay.ttlMs,
    )
    const handle = relay.host.issue(
      relay.caller,
      relay.tool,
      relay.source.reference(this.#claimedBy!, task.taskId, ttlMs),
      ttlMs,
    )
    const { inputRequests: _i, result: _r, error: _e, ...seed } = detailed(task, handle, ttlMs)
    return { task: { resultType: "task", ...seed } }
  }
}
