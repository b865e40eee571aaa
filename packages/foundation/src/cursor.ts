/**
 * Opaque, stateless, signed cursors. A cursor carries its position and is bound to what it continues
 * (purpose, tool id, caller, a fingerprint of the arguments); it is signed with HMAC-SHA256 under a key
 * id, so any replica holding the key can continue any page and nobody can forge or redirect one.
 *
 * Wire form: `v1.<kid>.<payload>.<mac>`, with base64url payload and MAC; the MAC covers
 * `v1.<kid>.<payload>` exactly as received, so changing any byte is detected.
 *
 * @since 0.1.0
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { JsonValue } from "./jsonSchema.js"
import { ConfigError, ExpiredCursor, InvalidCursor } from "./toolError.js"

/**
 * What a cursor is bound to. Fields left out are bound to "absent", so a cursor made without a caller
 * is rejected when presented by one.
 *
 * @since 0.1.0
 */
export interface CursorBinding {
  /** What kind of continuation this is, e.g. `"tools/list"`, `"tools/call"`, `"search"`. */
  readonly purpose: string
  readonly toolId?: string
  readonly caller?: string
  /** The call's arguments; only their fingerprint is stored. */
  readonly args?: unknown
}

/**
 * The verified content of a cursor.
 *
 * @since 0.1.0
 */
export interface CursorClaims {
  readonly purpose: string
  readonly toolId?: string
  readonly caller?: string
  readonly fingerprint?: string
  readonly position: JsonValue
  readonly issuedAt: number
  readonly expiresAt: number
  readonly kid: string
}

/**
 * A signing key. `secret` should be at least 32 random bytes.
 *
 * @since 0.1.0
 */
export interface CursorKey {
  readonly kid: string
  readonly secret: string | Uint8Array
}

/**
 * Options of {@link makeCursorCodec}.
 *
 * @since 0.1.0
 */
export interface CursorCodecOptions {
  /** Signing keys; the first signs, all verify (rotation: add the new key first, drop the old later). */
  readonly keys: readonly CursorKey[]
  /** Time to live, default 15 minutes. */
  readonly ttlMs?: number
  /** Largest accepted encoded cursor, default 4096 bytes. */
  readonly maxBytes?: number
  /** Clock, for tests. */
  readonly now?: () => number
}

/**
 * Encodes and verifies cursors.
 *
 * @since 0.1.0
 */
export interface CursorCodec {
  /** Signs a cursor for `position`. Fails with {@link InvalidCursor} when it would exceed `maxBytes`. */
  encode(binding: CursorBinding, position: JsonValue): string
  /**
   * Verifies a cursor against the expected binding and returns its claims. Fails with
   * {@link InvalidCursor} (malformed, tampered, unknown key, other purpose/tool/caller/arguments) or
   * {@link ExpiredCursor}.
   */
  decode(cursor: string, expected: CursorBinding): CursorClaims
}

const VERSION = "v1"
const KID_RE = /^[A-Za-z0-9_-]{1,32}$/

const canonicalJson = (value: unknown): string => {
  if (value === undefined) return "null"
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const keys = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`
}

/**
 * A short stable fingerprint of a JSON value (key order does not matter).
 *
 * @since 0.1.0
 */
export const fingerprint = (value: unknown): string =>
  createHash("sha256").update(canonicalJson(value)).digest("base64url").slice(0, 22)

/**
 * A fresh random key, for a process that was given none.
 *
 * @since 0.1.0
 */
export const randomCursorKey = (kid = "ephemeral"): CursorKey => ({ kid, secret: randomBytes(32) })

/**
 * Makes a cursor codec.
 *
 * @example
 * ```ts
 * const codec = makeCursorCodec({ keys: [{ kid: "k1", secret: process.env.CURSOR_SECRET! }] })
 * const next = codec.encode({ purpose: "tools/list" }, { offset: 50 })
 * codec.decode(next, { purpose: "tools/list" }).position // { offset: 50 }
 * ```
 * @since 0.1.0
 */
export const makeCursorCodec = (options: CursorCodecOptions): CursorCodec => {
  if (options.keys.length === 0)
    throw new ConfigError({ path: "cursor.keys", reason: "at least one key is required" })
  const keys = new Map<string, CursorKey>()
  options.keys.forEach((key, i) => {
    if (!KID_RE.test(key.kid))
      throw new ConfigError({
        path: `cursor.keys[${i}].kid`,
        reason: `"${key.kid}" must be 1-32 characters of letters, digits, "_" or "-"`,
      })
    const length = typeof key.secret === "string" ? Buffer.byteLength(key.secret) : key.secret.byteLength
    if (length < 16)
      throw new ConfigError({
        path: `cursor.keys[${i}].secret`,
        reason: `secret is ${length} bytes; use at least 16 (32 random bytes recommended)`,
      })
    if (keys.has(key.kid))
      throw new ConfigError({ path: `cursor.keys[${i}].kid`, reason: `duplicate key id "${key.kid}"` })
    keys.set(key.kid, key)
  })
  const signing = options.keys[0]!
  const ttlMs = options.ttlMs ?? 15 * 60_000
  const maxBytes = options.maxBytes ?? 4096
  const now = options.now ?? Date.now
  const mac = (key: CursorKey, signed: string): string =>
    createHmac("sha256", key.secret).update(signed).digest("base64url")

  return {
    encode(binding, position) {
      const issuedAt = now()
      const claims = {
        p: binding.purpose,
        t: binding.toolId,
        c: binding.caller,
        f: binding.args === undefined ? undefined : fingerprint(binding.args),
        x: position,
        i: issuedAt,
        e: issuedAt + ttlMs,
      }
      const payload = Buffer.from(JSON.stringify(claims)).toString("base64url")
      const signed = `${VERSION}.${signing.kid}.${payload}`
      const cursor = `${signed}.${mac(signing, signed)}`
      if (cursor.length > maxBytes)
        throw new InvalidCursor({
          reason: `encoded cursor is ${cursor.length} bytes, over the ${maxBytes}-byte limit; keep cursor positions small`,
        })
      return cursor
    },
    decode(cursor, expected) {
      if (typeof cursor !== "string" || cursor.length === 0)
        throw new InvalidCursor({ reason: "cursor is empty" })
      if (cursor.length > maxBytes)
        throw new InvalidCursor({
          reason: `cursor is ${cursor.length} bytes, over the ${maxBytes}-byte limit`,
        })
      const parts = cursor.split(".")
      if (parts.length !== 4 || parts[0] !== VERSION)
        throw new InvalidCursor({ reason: "malformed cursor (not produced by this server)" })
      const [, kid, payload, signature] = parts as [string, string, string, string]
      const key = keys.get(kid)
      if (!key) throw new InvalidCursor({ reason: `cursor was signed with unknown key "${kid}"` })
      const expectedMac = Buffer.from(mac(key, `${VERSION}.${kid}.${payload}`))
      const givenMac = Buffer.from(signature)
      if (givenMac.length !== expectedMac.length || !timingSafeEqual(givenMac, expectedMac))
        throw new InvalidCursor({
          reason: "signature does not match (cursor was altered or signed by another key)",
        })
      let raw: Record<string, unknown>
      try {
        raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
      } catch {
        throw new InvalidCursor({ reason: "payload is not valid JSON" })
      }
      if (typeof raw.i !== "number" || typeof raw.e !== "number" || typeof raw.p !== "string")
        throw new InvalidCursor({ reason: "payload is missing required fields" })
      if (raw.p !== expected.purpose)
        throw new InvalidCursor({ reason: `cursor belongs to "${raw.p}", not "${expected.purpose}"` })
      if (raw.t !== expected.toolId)
        throw new InvalidCursor({
          reason: `cursor belongs to tool "${raw.t ?? "(none)"}", not "${expected.toolId ?? "(none)"}"`,
        })
      if (raw.c !== expected.caller)
        throw new InvalidCursor({ reason: "cursor was issued to another caller" })
      const expectedFingerprint = expected.args === undefined ? undefined : fingerprint(expected.args)
      if (raw.f !== expectedFingerprint)
        throw new InvalidCursor({ reason: "cursor was issued for different arguments" })
      if (now() >= raw.e) throw new ExpiredCursor({ expiredAt: raw.e })
      return {
        purpose: raw.p,
        ...(raw.t !== undefined ? { toolId: raw.t as string } : {}),
        ...(raw.c !== undefined ? { caller: raw.c as string } : {}),
        ...(raw.f !== undefined ? { fingerprint: raw.f as string } : {}),
        position: (raw.x ?? null) as JsonValue,
        issuedAt: raw.i,
        expiresAt: raw.e,
        kid,
      }
    },
  }
}
