/**
 * The two name forms `mapToolNames` picks from: the readable form of an id and its hashed form.
 */
import { createHash } from "node:crypto"

/** The longest function name OpenAI accepts (public as `OPENAI_NAME_MAX_LENGTH`). */
export const MAX_LENGTH = 64

export const HASH_DIGITS = 10

/**
 * The readable OpenAI form of an id: `/` becomes `__`, any other disallowed character `_`. Not
 * length-limited and not collision-checked: use `mapToolNames` for names you send.
 */
export const readableName = (id: string): string => {
  const slash = id.indexOf("/")
  const sanitize = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_")
  return slash < 0 ? sanitize(id) : `${sanitize(id.slice(0, slash))}__${sanitize(id.slice(slash + 1))}`
}

/**
 * The hashed form of an id: a readable prefix, `_` and `digits` hex digits of SHA-256 of the id.
 */
export const hashedName = (id: string, digits = HASH_DIGITS): string => {
  const hash = createHash("sha256").update(id).digest("hex").slice(0, digits)
  const prefix = readableName(id).slice(0, MAX_LENGTH - digits - 1)
  return `${prefix}_${hash}`
}
