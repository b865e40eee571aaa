/**
 * The multi round-trip requests (2026-07-28) a server answered `input_required` and whose retry has not
 * come yet: what an operator console lists (an approval waiting for the client's user) and may refuse.
 * The server holds no running call for them (the client keeps the signed `requestState`), so refusing
 * one marks its state rejected: the retry that brings it is answered `-32602` with
 * `data.reason: "rejected"` and nothing runs, on every replica the mark reaches over the replica bus.
 *
 * @since 0.2.0
 */
import type { RequestStateBinding, RequestStates } from "./requestState.js"

/**
 * One request waiting for its client's retry.
 *
 * @since 0.2.0
 */
export interface McpPendingInput {
  /** Names it for {@link McpPendingInputs.reject} (the state's nonce, not the state itself). */
  readonly id: string
  /** The method (`tools/call`). */
  readonly method: string
  /** The tool's MCP name as the client called it. */
  readonly name: string
  /** The authenticated client (absent without auth). */
  readonly clientId?: string
  /** The scopes of the token that made the request (absent without auth). */
  readonly scopes?: readonly string[]
  /** The call's arguments as the client sent them (`{ truncated }` past 16 KiB of JSON). */
  readonly arguments: unknown
  /** The input requests asked for, by key (an approval is the key `approval`); params past 16 KiB omitted. */
  readonly inputRequests: Readonly<Record<string, { readonly method: string; readonly params?: unknown }>>
  /** When it was answered `input_required`, ms since the epoch. */
  readonly issuedAt: number
  /** When its state expires, ms since the epoch. */
  readonly expiresAt: number
}

/**
 * The pending multi round-trip requests of one server (`McpHttpServerHandle.pendingInputs`).
 *
 * @since 0.2.0
 */
export interface McpPendingInputs {
  /** Those issued by this server (this replica) and neither retried, rejected nor expired, oldest first. */
  list(): readonly McpPendingInput[]
  /**
   * Refuses the retry of a pending request (here, and on the other replicas through the bus); `false`
   * when it is not pending here (retried already, expired, or issued by another replica).
   */
  reject(id: string): boolean
}

/** Most entries kept (the oldest are dropped first: a flood of unanswered requests cannot grow memory). */
const MAX_ENTRIES = 500
/** Largest JSON text of arguments or an input request's params kept for display. */
const MAX_SHOWN_CHARS = 16 * 1024

const bounded = (value: unknown): { ok: true; value: unknown } | { ok: false; chars: number } => {
  const text = JSON.stringify(value ?? null)
  return text.length <= MAX_SHOWN_CHARS ? { ok: true, value } : { ok: false, chars: text.length }
}

/**
 * The registry behind {@link McpPendingInputs}: the modern serving adds what it issues and removes what is
 * used (here or, through the bus, elsewhere); `onReject` marks the state and tells the replicas.
 *
 * @internal
 */
export class PendingInputRegistry implements McpPendingInputs {
  readonly #entries = new Map<string, McpPendingInput>()
  readonly #now: () => number
  readonly #onReject: (id: string, expiresAt: number) => void

  constructor(onReject: (id: string, expiresAt: number) => void, now: () => number = Date.now) {
    this.#onReject = onReject
    this.#now = now
  }

  add(
    entry: Omit<McpPendingInput, "arguments" | "inputRequests"> & {
      readonly arguments: unknown
      readonly inputRequests: Readonly<Record<string, { readonly method: string; readonly params?: unknown }>>
    },
  ): void {
    this.#prune()
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
    const args = bounded(entry.arguments)
    const inputRequests: Record<string, { method: string; params?: unknown }> = {}
    for (const [key, request] of Object.entries(entry.inputRequests)) {
      const params = bounded(request.params)
      inputRequests[key] = { method: request.method, ...(params.ok ? { params: params.value } : {}) }
    }
    this.#entries.set(entry.id, {
      ...entry,
      arguments: args.ok ? args.value : { truncated: `${args.chars} characters of JSON` },
      inputRequests,
    })
  }

  /** Its state was used (the retry came) or rejected: no longer pending. */
  remove(id: string): void {
    this.#entries.delete(id)
  }

  #prune(): void {
    const now = this.#now()
    for (const [id, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(id)
  }

  list(): readonly McpPendingInput[] {
    this.#prune()
    return [...this.#entries.values()]
  }

  reject(id: string): boolean {
    this.#prune()
    const entry = this.#entries.get(id)
    if (entry === undefined) return false
    this.#entries.delete(id)
    this.#onReject(id, entry.expiresAt)
    return true
  }
}

/**
 * Records a request just answered `input_required` with `requestState` (read back for its nonce and
 * expiry) in `registry`.
 *
 * @internal
 */
export const recordPending = (
  registry: PendingInputRegistry,
  states: RequestStates,
  requestState: string,
  binding: RequestStateBinding,
  params: Readonly<Record<string, unknown>>,
  authInfo: { readonly clientId: string; readonly scopes: readonly string[] } | undefined,
  inputRequests: Readonly<Record<string, { readonly method: string; readonly params?: unknown }>>,
): void => {
  const verdict = states.verify(requestState, binding)
  if (!verdict.ok) return
  registry.add({
    id: verdict.claims.n,
    method: "tools/call",
    name: String(params.name),
    ...(authInfo ? { clientId: authInfo.clientId, scopes: [...authInfo.scopes] } : {}),
    arguments: params.arguments ?? {},
    inputRequests,
    issuedAt: Date.now(),
    expiresAt: verdict.claims.e,
  })
}
