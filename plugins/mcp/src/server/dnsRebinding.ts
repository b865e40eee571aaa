/**
 * DNS-rebinding protection for HTTP servers bound to localhost: a web page on another origin can make
 * a browser resolve its own hostname to 127.0.0.1 and talk to a local server. Checking that the `Host`
 * header names an expected host (and that a browser's `Origin`, when sent, is expected too) stops it.
 *
 * @since 0.1.0
 */
import type { IncomingMessage } from "node:http"

/**
 * The hostnames accepted by default when a server binds to a loopback address.
 *
 * @since 0.1.0
 */
export const LOOPBACK_HOSTNAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"]

/**
 * Whether `host` (a bind address or hostname) is a loopback address.
 *
 * @since 0.1.0
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "")
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith(".localhost")
}

/**
 * What {@link checkDnsRebinding} accepts. An empty `allowedHosts` turns host checking off.
 *
 * @since 0.1.0
 */
export interface DnsRebindingPolicy {
  /** Accepted `Host` hostnames (no port; IPv6 in brackets). */
  readonly allowedHosts: readonly string[]
  /** Accepted `Origin` values (`scheme://host[:port]`); by default origins whose hostname is allowed. */
  readonly allowedOrigins?: readonly string[]
}

/**
 * The policy for a bind address: loopback binds accept only loopback hostnames (plus `extra`); other
 * binds accept any host unless `extra` lists some.
 *
 * @since 0.1.0
 */
export const dnsRebindingPolicy = (
  bindHost: string,
  extra: { readonly allowedHosts?: readonly string[]; readonly allowedOrigins?: readonly string[] } = {},
): DnsRebindingPolicy => {
  const allowedHosts = extra.allowedHosts
    ? isLoopbackHost(bindHost)
      ? [...new Set([...LOOPBACK_HOSTNAMES, ...extra.allowedHosts])]
      : [...extra.allowedHosts]
    : isLoopbackHost(bindHost)
      ? [...LOOPBACK_HOSTNAMES]
      : []
  return { allowedHosts, ...(extra.allowedOrigins ? { allowedOrigins: extra.allowedOrigins } : {}) }
}

const hostnameOf = (hostHeader: string): string | undefined => {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * Checks a request's `Host` and `Origin` headers; returns the reason to reject it, or `undefined`.
 *
 * @since 0.1.0
 */
export const checkDnsRebinding = (
  headers: Pick<IncomingMessage["headers"], "host" | "origin">,
  policy: DnsRebindingPolicy,
): string | undefined => {
  if (policy.allowedHosts.length === 0 && !policy.allowedOrigins) return undefined
  const allowed = policy.allowedHosts.map((h) => h.toLowerCase())
  if (allowed.length > 0) {
    const host = headers.host
    if (!host) return "missing Host header"
    const hostname = hostnameOf(host)
    if (hostname === undefined) return `invalid Host header: ${host}`
    if (!allowed.includes(hostname)) return `Host "${hostname}" is not allowed`
  }
  const origin = headers.origin
  if (origin === undefined || origin === "null")
    return origin === "null" ? 'Origin "null" is not allowed' : undefined
  if (policy.allowedOrigins) {
    return policy.allowedOrigins.includes(origin) ? undefined : `Origin "${origin}" is not allowed`
  }
  if (allowed.length === 0) return undefined
  let originHost: string
  try {
    originHost = new URL(origin).hostname.toLowerCase()
  } catch {
    return `invalid Origin header: ${origin}`
  }
  return allowed.includes(originHost) ? undefined : `Origin "${origin}" is not allowed`
}
