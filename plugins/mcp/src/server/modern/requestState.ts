/**
 * `requestState` of a multi round-trip request (MCP 2026-07-28): what the server needs to continue a
 * request when the client retries it with the inputs it was asked for, kept by the client instead of the
 * server, so the retry may reach any replica. The state is signed (HMAC-SHA256 under a key derived from
 * the shared secret) and bound to the caller, the tool, the canonical arguments and an expiry; it also
 * carries the answers of earlier rounds, so a tool asking twice sees both. A verified state is used once:
 * a replay after the request completed is refused.
 *
 * @internal
 */

import { createHash, createHmac, randomBytes } from "node:crypto"
import { openSignedToken } from "./signedToken.js"

/** What a request state says. */
export interface RequestStateClaims {
  /** Format version. */
  readonly v: 1
  /** The authenticated caller (`""` when the server does not authenticate). */
  readonly c: string
  /** The method and the name it was sent for (`tools/call` and the tool's MCP name). */
  readonly m: string
  /** SHA-256 (base64url) of the canonical JSON of the request's arguments. */
  readonly a: string
  /** The input keys this round asked for (the only answers a retry may add). */
  readonly k: readonly string[]
  /** Answers of earlier rounds, by key. */
  readonly r: Readonly<Record<string, unknown>>
  /** Expiry, ms since the epoch. */
  readonly e: number
  /** A random nonce: a state is used once. */
  readonly n: string
  /** The held call this state resumes (see `heldCalls.ts`), when the call waits on its replica. */
  readonly h?: string
  /** The replica holding that call. */
  readonly o?: string
}

/** Why a request state was refused. */
export type RequestStateRefusal =
  | "malformed"
  | "signature"
  | "expired"
  | "caller"
  | "method"
  | "arguments"
  | "replayed"
  | "rejected"

/** The result of verifying a request state. */
export type RequestStateVerdict =
  | { readonly ok: true; readonly claims: RequestStateClaims }
  | { readonly ok: false; readonly reason: RequestStateRefusal }

/** What a state must match on a retry. */
export interface RequestStateBinding {
  readonly caller: string
  readonly method: string
  readonly arguments: unknown
}

const TAG_BYTES = 32
/** Longest accepted state (a state carries earlier answers; a client cannot make us parse megabytes). */
const MAX_STATE_CHARS = 64 * 1024

/** JSON with object keys sorted at every level: equal arguments give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort()
    const parts: string[] = []
    for (const key of keys) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`)
    }
    return `{${parts.join(",")}}`
  }
  return JSON.stringify(value ?? null)
}

const digest = (value: unknown) => createHash("sha256").update(canonicalJson(value)).digest("base64url")

/**
 * Signs and verifies request states under one key (replicas derive the same key from the same secret),
 * remembering the nonces of used states until they expire.
 */
export class RequestStates {
  readonly #key: Buffer
  readonly #ttlMs: number
  readonly #now: () => number
  /** Used nonces and their expiry. */
  readonly #used = new Map<string, number>()
  /** Nonces of states an operator rejected, and their expiry. */
  readonly #rejected = new Map<string, number>()

  constructor(secret: string | Uint8Array | undefined, options: { ttlMs?: number; now?: () => number } = {}) {
    this.#key = createHmac("sha256", secret === undefined ? randomBytes(32) : Buffer.from(secret))
      .update("toolplane request state v1")
      .digest()
    this.#ttlMs = options.ttlMs ?? 10 * 60_000
    this.#now = options.now ?? Date.now
  }

  #tag(body: string): Buffer {
    return createHmac("sha256", this.#key).update(body).digest().subarray(0, TAG_BYTES)
  }

  /** A signed state for a round asking for `keys`, carrying the answers so far. */
  sign(
    binding: RequestStateBinding,
    keys: readonly string[],
    answers: Readonly<Record<string, unknown>>,
    held?: { readonly h: string; readonly o: string },
  ): string {
    const claims: RequestStateClaims = {
      v: 1,
      c: binding.caller,
      m: binding.method,
      a: digest(binding.arguments ?? {}),
      k: keys,
      r: answers,
      e: this.#now() + this.#ttlMs,
      n: randomBytes(12).toString("base64url"),
      ...held,
    }
    const body = Buffer.from(JSON.stringify(claims)).toString("base64url")
    return `${body}.${this.#tag(body).toString("base64url")}`
  }

  /** Checks a state against the retry it came with (not yet marking it used: see {@link consume}). */
  verify(state: unknown, binding: RequestStateBinding): RequestStateVerdict {
    if (typeof state !== "string" || state.length > MAX_STATE_CHARS) return { ok: false, reason: "malformed" }
    const opened = openSignedToken(state, TAG_BYTES, (body) => this.#tag(body))
    if (!opened.ok) return opened
    const claims = opened.claims as RequestStateClaims
    if (
      typeof claims !== "object" ||
      claims === null ||
      claims.v !== 1 ||
      typeof claims.n !== "string" ||
      typeof claims.e !== "number" ||
      !Array.isArray(claims.k) ||
      typeof claims.r !== "object" ||
      claims.r === null ||
      (claims.h !== undefined && (typeof claims.h !== "string" || typeof claims.o !== "string"))
    )
      return { ok: false, reason: "malformed" }
    if (claims.e <= this.#now()) return { ok: false, reason: "expired" }
    if (claims.c !== binding.caller) return { ok: false, reason: "caller" }
    if (claims.m !== binding.method) return { ok: false, reason: "method" }
    if (claims.a !== digest(binding.arguments ?? {})) return { ok: false, reason: "arguments" }
    if (this.#rejected.has(claims.n)) return { ok: false, reason: "rejected" }
    if (this.#used.has(claims.n)) return { ok: false, reason: "replayed" }
    return { ok: true, claims }
  }

  /**
   * Marks a verified state used (its request went on with its answers); `false` when another retry
   * used it first.
   */
  consume(claims: RequestStateClaims): boolean {
    if (this.#used.has(claims.n)) return false
    this.markUsed(claims.n, claims.e)
    return true
  }

  /** Records a nonce as rejected until `expiresAt`: a retry with its state runs nothing. */
  reject(nonce: string, expiresAt: number): void {
    const now = this.#now()
    if (this.#rejected.size > 1024)
      for (const [n, e] of this.#rejected) if (e <= now) this.#rejected.delete(n)
    if (expiresAt > now) this.#rejected.set(nonce, expiresAt)
  }

  /** Records a nonce as used until `expiresAt` (a state another replica consumed). */
  markUsed(nonce: string, expiresAt: number): void {
    const now = this.#now()
    if (this.#used.size > 1024) for (const [n, e] of this.#used) if (e <= now) this.#used.delete(n)
    if (expiresAt > now) this.#used.set(nonce, expiresAt)
  }
}
