/**
 * Task handles of the tasks extension (`io.modelcontextprotocol/tasks`): the `taskId` a client polls
 * with is a token the gateway signed (HMAC-SHA256 under a key derived from the same secret request
 * states use, with another label), binding a random task id to the caller, the tool and an expiry. Any
 * replica sharing the secret can tell a handle it issued from a forged, altered, foreign or expired one
 * before looking anything up, so a refused handle reaches no task and runs nothing.
 *
 * @internal
 */

import { createHmac, randomBytes } from "node:crypto"
import { openSignedToken } from "./signedToken.js"

/** What a task handle says. */
export interface TaskClaims {
  /** Format version. */
  readonly v: 1
  /** The task's random id (the key of its state). */
  readonly i: string
  /** The authenticated caller (`""` when the server does not authenticate). */
  readonly c: string
  /** The tool's MCP name. */
  readonly t: string
  /** Expiry, ms since the epoch (the task's creation plus its `ttlMs`). */
  readonly e: number
  /**
   * Where the task's state is, for a source other than this process's memory (an upstream server's task
   * id, a store's key): opaque to the signer, signed with the rest, so a client cannot point a handle
   * at another task.
   */
  readonly s?: string
}

/** Why a task handle was refused. */
export type TaskHandleRefusal = "malformed" | "signature" | "expired" | "caller"

/** The result of verifying a task handle. */
export type TaskHandleVerdict =
  | { readonly ok: true; readonly claims: TaskClaims }
  | { readonly ok: false; readonly reason: TaskHandleRefusal }

const PREFIX = "tp1."
const TAG_BYTES = 32
/** Longest accepted handle: a handle is a few hundred characters; a client cannot make us parse more. */
const MAX_HANDLE_CHARS = 4096

/** Signs and verifies task handles under one key (replicas derive the same key from the same secret). */
export class TaskHandles {
  readonly #key: Buffer
  readonly #now: () => number

  constructor(secret: string | Uint8Array | undefined, options: { now?: () => number } = {}) {
    this.#key = createHmac("sha256", secret === undefined ? randomBytes(32) : Buffer.from(secret))
      .update("toolplane task handle v1")
      .digest()
    this.#now = options.now ?? Date.now
  }

  #tag(body: string): Buffer {
    return createHmac("sha256", this.#key).update(body).digest().subarray(0, TAG_BYTES)
  }

  /** A new handle for a task of `tool` called by `caller`, valid until `expiresAt`; `source`: see {@link TaskClaims.s}. */
  sign(
    caller: string,
    tool: string,
    expiresAt: number,
    source?: string,
  ): { handle: string; claims: TaskClaims } {
    const claims: TaskClaims = {
      v: 1,
      i: randomBytes(16).toString("base64url"),
      c: caller,
      t: tool,
      e: expiresAt,
      ...(source !== undefined ? { s: source } : {}),
    }
    const body = Buffer.from(JSON.stringify(claims)).toString("base64url")
    return { handle: `${PREFIX}${body}.${this.#tag(body).toString("base64url")}`, claims }
  }

  /** Checks a handle a caller sent (signature in constant time, then expiry, then the caller). */
  verify(handle: unknown, caller: string): TaskHandleVerdict {
    if (typeof handle !== "string" || handle.length > MAX_HANDLE_CHARS || !handle.startsWith(PREFIX))
      return { ok: false, reason: "malformed" }
    const opened = openSignedToken(handle.slice(PREFIX.length), TAG_BYTES, (body) => this.#tag(body))
    if (!opened.ok) return opened
    const claims = opened.claims as TaskClaims
    if (
      typeof claims !== "object" ||
      claims === null ||
      claims.v !== 1 ||
      typeof claims.i !== "string" ||
      typeof claims.c !== "string" ||
      typeof claims.t !== "string" ||
      typeof claims.e !== "number" ||
      (claims.s !== undefined && typeof claims.s !== "string")
    )
      return { ok: false, reason: "malformed" }
    if (claims.e <= this.#now()) return { ok: false, reason: "expired" }
    if (claims.c !== caller) return { ok: false, reason: "caller" }
    return { ok: true, claims }
  }
}
