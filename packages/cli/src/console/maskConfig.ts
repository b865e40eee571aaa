/**
 * The active configuration as the console shows it: environment values, header values and URL
 * credentials masked; the names of token variables kept.
 *
 * @since 0.1.0
 */
import type { GatewayConfig } from "../config/schema.js"

const MASK = "••••"

const maskUrl = (text: string): string => {
  try {
    const url = new URL(text)
    if (url.username === "" && url.password === "") return text
    url.username = url.username === "" ? "" : MASK
    url.password = url.password === "" ? "" : MASK
    return url.toString()
  } catch {
    return text
  }
}

const maskValues = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.keys(record).map((k) => [k, MASK]))

/**
 * A copy of `config` safe to show: no secret values.
 *
 * @since 0.1.0
 */
export const maskConfig = (config: GatewayConfig): unknown => {
  const walk = (value: unknown, key: string): unknown => {
    if (typeof value === "string")
      return /url|runs/i.test(key) || /^\w+:\/\//.test(value) ? maskUrl(value) : value
    if (Array.isArray(value)) return value.map((v) => walk(v, key))
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) {
        if ((k === "env" || k === "headers") && v !== null && typeof v === "object")
          out[k] = maskValues(v as Record<string, string>)
        else out[k] = walk(v, k)
      }
      return out
    }
    return value
  }
  return walk(config, "")
}
