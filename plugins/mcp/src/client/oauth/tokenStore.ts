/**
 * Upstream OAuth tokens at rest: one file, AES-256-GCM encrypted as a whole with a 32-byte key the
 * operator supplies (never stored beside it), written atomically with mode 0600. Entries are keyed by
 * issuer and backend, so a token is only ever found for the issuer and backend it was issued for.
 *
 * Several processes may share the file (a gateway per stdio client, `toolplane auth login` and `logout`
 * beside a running gateway): every change is a read-modify-write under a lock file beside it, and a
 * refresh holds a lock of its own entry, so no process loses another's change or spends a refresh token
 * another process already rotated.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { chmod, readFile, rename, writeFile } from "node:fs/promises"
import { OAuthUpstreamError } from "./errors.js"

/**
 * The tokens of one backend from one issuer.
 *
 * @since 0.1.0
 */
export interface StoredTokens {
  readonly issuer: string
  readonly backend: string
  /**
   * The gateway caller these tokens belong to (a per-caller backend); absent for the backend's one service
   * identity. Never found for another caller, nor for the service identity.
   *
   * @since 0.2.0
   */
  readonly caller?: string
  /** The MCP server URL the tokens were issued for (RFC 8707 `resource`). */
  readonly resource: string
  readonly clientId: string
  readonly accessToken: string
  readonly refreshToken?: string
  /** Milliseconds since the epoch; absent when the server gave no `expires_in`. */
  readonly expiresAt?: number
  readonly scope?: string
}

const AAD = Buffer.from("toolplane-oauth-token-store-v1")

/**
 * Decodes a token-store key: 32 bytes as base64 (44 characters) or hex (64 characters).
 *
 * @throws {@link OAuthUpstreamError} when it is not 32 bytes.
 * @since 0.1.0
 */
export const parseTokenKey = (text: string, where: string): Buffer => {
  const trimmed = text.trim()
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64")
  if (key.length !== 32)
    throw new OAuthUpstreamError(
      `${where} must hold a 32-byte key as base64 or hex (e.g. \`openssl rand -base64 32\`)`,
    )
  return key
}

const sameTokens = (a: StoredTokens, b: StoredTokens): boolean =>
  a.accessToken === b.accessToken && a.refreshToken === b.refreshToken

/**
 * How long a lock is kept by a holder that stopped renewing it (a killed process) before others take it,
 * and how long a process waits for one: longer than the slowest refresh a holder may be waiting for.
 */
const LOCK_STALE_MS = 10_000
const LOCK_WAIT_MS = 45_000
const LOCK_RETRY_MS = 25

/**
 * The lock library, loaded on the first change: it installs process-wide exit and signal hooks (to remove
 * its locks) and patches `fs.close`, which a process that never writes tokens should not get.
 */
let lockLibrary: Promise<typeof import("proper-lockfile")> | undefined
const locks = () => {
  lockLibrary ??= import("proper-lockfile").then((m) => m.default)
  return lockLibrary
}

// A caller's entry is keyed by a JSON array: caller ids are arbitrary text, so no separator could be trusted.
const entryKey = (issuer: string, backend: string, caller?: string): string =>
  caller === undefined ? `${issuer}\n${backend}` : JSON.stringify(["caller", caller, issuer, backend])

/**
 * An encrypted token file.
 *
 * @example
 * ```ts
 * const store = new EncryptedTokenStore("toolplane.tokens", parseTokenKey(process.env.TOKEN_KEY!, "TOKEN_KEY"))
 * const tokens = await store.get("https://auth.example.com", "crm")
 * ```
 * @since 0.1.0
 */
export class EncryptedTokenStore {
  readonly path: string
  readonly #key: Buffer
  /** Serializes writes within this process. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor(path: string, key: Buffer) {
    if (key.length !== 32) throw new OAuthUpstreamError("the token-store key must be 32 bytes")
    this.path = path
    this.#key = key
  }

  async #read(): Promise<Record<string, StoredTokens>> {
    let text: string
    try {
      text = await readFile(this.path, "utf8")
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return {}
      throw error
    }
    try {
      const file = JSON.parse(text) as { v: number; iv: string; tag: string; data: string }
      const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(file.iv, "base64"))
      decipher.setAAD(AAD)
      decipher.setAuthTag(Buffer.from(file.tag, "base64"))
      const plain = Buffer.concat([decipher.update(Buffer.from(file.data, "base64")), decipher.final()])
      return JSON.parse(plain.toString("utf8")) as Record<string, StoredTokens>
    } catch {
      throw new OAuthUpstreamError(`token store ${this.path} cannot be decrypted (wrong key or damaged file)`)
    }
  }

  async #write(entries: Record<string, StoredTokens>): Promise<void> {
    const iv = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv)
    cipher.setAAD(AAD)
    const data = Buffer.concat([cipher.update(JSON.stringify(entries), "utf8"), cipher.final()])
    const file = JSON.stringify({
      v: 1,
      iv: iv.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
      data: data.toString("base64"),
    })
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
    await writeFile(temporary, file, { mode: 0o600 })
    await chmod(temporary, 0o600)
    await rename(temporary, this.path)
  }

  /**
   * Runs `work` holding the lock of `name` (the lock file `<name>.lock`, shared with other processes),
   * waiting for it if held. Each lock has its own name: the library keeps one lock per name per process.
   */
  async #locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    const lockPath = `${name}.lock`
    const deadline = Date.now() + LOCK_WAIT_MS
    let release: () => Promise<void>
    for (;;) {
      try {
        release = await (await locks()).lock(name, {
          realpath: false,
          stale: LOCK_STALE_MS,
          // A lock taken over as stale while this process still works: its write is still atomic, and
          // the default (throwing from a timer) would end the whole process.
          onCompromised: () => {},
        })
        break
      } catch (error) {
        // Only a held lock is waited for (the library's own retries would retry any failure).
        const held = (error as { code?: string }).code === "ELOCKED"
        if (held && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS))
          continue
        }
        throw new OAuthUpstreamError(
          held
            ? `token store ${this.path}: the lock ${lockPath} stayed held by another process for ${LOCK_WAIT_MS / 1000} s`
            : `token store ${this.path}: cannot make the lock ${lockPath} (${(error as Error).message})`,
        )
      }
    }
    try {
      return await work()
    } finally {
      await release().catch(() => {})
    }
  }

  /** Changes the file under its lock; `change` returns what the caller gets. */
  #update<T>(change: (entries: Record<string, StoredTokens>) => T): Promise<T> {
    const next = this.#queue.then(() =>
      this.#locked(this.path, async () => {
        const entries = await this.#read()
        const result = change(entries)
        await this.#write(entries)
        return result
      }),
    )
    this.#queue = next.catch(() => {})
    return next
  }

  /** The tokens of `backend` from `issuer` (of `caller`, when given: a per-caller backend), if stored. */
  async get(issuer: string, backend: string, caller?: string): Promise<StoredTokens | undefined> {
    await this.#queue
    const entry = (await this.#read())[entryKey(issuer, backend, caller)]
    return entry?.issuer === issuer && entry.backend === backend && entry.caller === caller
      ? entry
      : undefined
  }

  /** Stores (replaces) the tokens of `tokens.backend` from `tokens.issuer` (and `tokens.caller`). */
  set(tokens: StoredTokens): Promise<void> {
    return this.#update((entries) => {
      entries[entryKey(tokens.issuer, tokens.backend, tokens.caller)] = tokens
    })
  }

  /** Forgets the tokens of `backend` from `issuer` (of `caller`, when given). */
  delete(issuer: string, backend: string, caller?: string): Promise<void> {
    return this.#update((entries) => {
      delete entries[entryKey(issuer, backend, caller)]
    })
  }

  /**
   * Forgets `tokens` unless the store now holds others in their place (a process refreshed them): those
   * are returned and kept. Undefined once nothing is stored for that entry.
   *
   * @example
   * ```ts
   * const store = new EncryptedTokenStore("toolplane.tokens", parseTokenKey(process.env.TOKEN_KEY!, "TOKEN_KEY"))
   * const revoke = async (tokens: StoredTokens): Promise<void> => {
   *   // your revocation request for tokens.refreshToken and tokens.accessToken
   * }
   * let held = await store.get("https://auth.example.com", "crm")
   * while (held !== undefined) {
   *   await revoke(held)
   *   held = await store.deleteIfUnchanged(held) // newer tokens a gateway stored meanwhile, if any
   * }
   * ```
   * @since 0.2.0
   */
  deleteIfUnchanged(tokens: StoredTokens): Promise<StoredTokens | undefined> {
    const key = entryKey(tokens.issuer, tokens.backend, tokens.caller)
    return this.#update((entries) => {
      const stored = entries[key]
      if (stored === undefined || !sameTokens(stored, tokens)) return stored
      delete entries[key]
      return undefined
    })
  }

  /**
   * Refreshes `current` with `refresh` and stores the result, holding a lock of that entry meanwhile, so
   * that processes sharing the file never spend one refresh token twice (an issuer that rotates refresh
   * tokens may revoke the whole grant when one is reused). When another process replaced `current` first,
   * its tokens are returned and `refresh` is not called; undefined when the entry was deleted.
   *
   * @example
   * ```ts
   * const store = new EncryptedTokenStore("toolplane.tokens", parseTokenKey(process.env.TOKEN_KEY!, "TOKEN_KEY"))
   * const held = await store.get("https://auth.example.com", "crm")
   * if (held !== undefined) {
   *   const fresh = await store.refresh(held, async (tokens) => ({
   *     ...tokens,
   *     accessToken: "…", // from your refresh_token grant with tokens.refreshToken
   *   }))
   *   console.log(fresh === undefined ? "logged out meanwhile" : "fresh tokens stored")
   * }
   * ```
   * @since 0.2.0
   */
  refresh(
    current: StoredTokens,
    refresh: (current: StoredTokens) => Promise<StoredTokens>,
  ): Promise<StoredTokens | undefined> {
    const key = entryKey(current.issuer, current.backend, current.caller)
    const entry = `${this.path}.${createHash("sha256").update(key).digest("hex").slice(0, 16)}`
    return this.#locked(entry, async () => {
      await this.#queue
      const stored = (await this.#read())[key]
      if (stored === undefined || !sameTokens(stored, current)) return stored
      const next = await refresh(stored)
      await this.set(next)
      return next
    })
  }

  /**
   * The issuers holding tokens of `backend` for `caller` (the service identity when absent), whatever
   * resource they were issued for (no tokens returned).
   *
   * @since 0.2.0
   */
  async issuers(backend: string, caller?: string): Promise<readonly string[]> {
    await this.#queue
    const found = new Set<string>()
    for (const entry of Object.values(await this.#read()))
      if (entry.backend === backend && entry.caller === caller) found.add(entry.issuer)
    return [...found]
  }

  /**
   * The callers holding tokens of `backend` for `resource`, most recently stored last (no tokens returned).
   *
   * @since 0.2.0
   */
  async callers(backend: string, resource: string): Promise<readonly string[]> {
    await this.#queue
    const found = new Set<string>()
    for (const entry of Object.values(await this.#read()))
      if (entry.caller !== undefined && entry.backend === backend && entry.resource === resource) {
        found.delete(entry.caller)
        found.add(entry.caller)
      }
    return [...found]
  }
}
