/**
 * DNS-rebinding protection for HTTP servers bound to localhost: a web page on another origin can make
 * a browser resolve its own hostname to 127.0.0.1 and talk to a local server. Checking that the `Host`
 * header names an expected host (and that a browser's `Origin`, when sent, is expected too) stops it.
 *
 * @since 0.1.0
 */
import type { IncomingMessage } from "node:http"
import { networkInterfaces, hostname as osHostname } from "node:os"

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
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "")
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith(".localhost")
}

/**
 * Whether `host` is a wildcard bind address (`0.0.0.0`, `::`, or empty): the server answers on every
 * interface.
 *
 * @since 0.1.0
 */
export const isWildcardHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "")
  return h === "" || h === "0.0.0.0" || h === "::" || h === "::0" || h === "::ffff:0.0.0.0"
}

/** A hostname as it appears in a `Host` header (IPv6 in brackets, lower case). */
const hostForm = (address: string): string => {
  const h = address.toLowerCase().replace(/%.*$/, "")
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h
}

/**
 * The names a server bound to a wildcard address can legitimately be reached by: the loopback names,
 * the machine's hostname and every interface address.
 *
 * @since 0.1.0
 */
export const localHostnames = (): string[] => {
  const names = new Set<string>(LOOPBACK_HOSTNAMES)
  try {
    const name = osHostname().toLowerCase()
    if (name) names.add(name)
  } catch {
    // No hostname: the addresses still work.
  }
  try {
    for (const infos of Object.values(networkInterfaces()))
      for (const info of infos ?? []) names.add(hostForm(info.address))
  } catch {
    // No interface list (sandboxes): loopback names only.
  }
  return [...names]
}

/**
 * What {@link checkDnsRebinding} accepts. An empty `allowedHosts` turns host checking off.
 *
 * @since 0.1.0
 */
export interface DnsRebindingPolicy {
  /**
   * Accepted `Host` values: a hostname (any port; IPv6 in brackets) or `hostname:port` (that port only;
   * a `Host` without a port means port 80).
   */
  readonly allowedHosts: readonly string[]
  /** Accepted `Origin` values (`scheme://host[:port]`); by default origins whose hostname is allowed. */
  readonly allowedOrigins?: readonly string[]
}

/**
 * The policy for a bind address: loopback binds accept only loopback hostnames (plus `extra`); wildcard
 * binds (`0.0.0.0`, `::`) accept, unless `extra.allowedHosts` lists others, the loopback names, the
 * machine's hostname and its interface addresses — with the bound `port` when given; other binds accept
 * any host unless `extra` lists some. Whatever the bind, a browser's `Origin` must name an accepted host
 * (or, when any host is accepted, the request's own `Host`), unless listed in `allowedOrigins`.
 *
 * @since 0.1.0
 */
export const dnsRebindingPolicy = (
  bindHost: string,
  extra: { readonly allowedHosts?: readonly string[]; readonly allowedOrigins?: readonly string[] } = {},
  port?: number,
): DnsRebindingPolicy => {
  const loopback = isLoopbackHost(bindHost)
  const wildcard = isWildcardHost(bindHost)
  const defaults = loopback
    ? [...LOOPBACK_HOSTNAMES]
    : wildcard
      ? localHostnames().map((h) => (port !== undefined ? `${h}:${port}` : h))
      : []
  const allowedHosts = extra.allowedHosts
    ? loopback
      ? [...new Set([...defaults, ...extra.allowedHosts])]
      : [...extra.allowedHosts]
    : defaults
  return { allowedHosts, ...(extra.allowedOrigins ? { allowedOrigins: extra.allowedOrigins } : {}) }
}

interface HostParts {
  readonly hostname: string
  /** The explicit port, or the scheme's default. */
  readonly port: string
}

/** Parsed `Host` values (a server sees a handful; parsing a URL per request is a measurable cost). */
const hostCache = new Map<string, HostParts | undefined>()

const hostPartsOf = (value: string): HostParts | undefined => {
  if (hostCache.has(value)) return hostCache.get(value)
  const parts = parseHostParts(value)
  if (hostCache.size >= 256) hostCache.clear()
  hostCache.set(value, parts)
  return parts
}

const parseHostParts = (value: string, scheme = "http:"): HostParts | undefined => {
  try {
    const url = new URL(value.includes("://") ? value : `${scheme}//${value}`)
    return {
      hostname: url.hostname.toLowerCase(),
      port: url.port || (url.protocol === "https:" ? "443" : "80"),
    }
  } catch {
    return undefined
  }
}

/** Whether a host matches one `allowedHosts` entry (a hostname, any port; or `hostname:port`). */
const hostMatches = (host: HostParts, entry: string): boolean => {
  const e = entry.toLowerCase()
  if (e === host.hostname) return true
  const colon = e.lastIndexOf(":")
  if (colon <= 0 || e.endsWith("]")) return false
  return e.slice(0, colon) === host.hostname && e.slice(colon + 1) === host.port
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
  const allowed = policy.allowedHosts
  const host = headers.host
  let hostParts: HostParts | undefined
  if (allowed.length > 0) {
    if (!host) return "missing Host header"
    hostParts = hostPartsOf(host)
    if (hostParts === undefined) return `invalid Host header: ${host}`
    const parts = hostParts
    if (!allowed.some((entry) => hostMatches(parts, entry))) return `Host "${host}" is not allowed`
  }
  const origin = headers.origin
  if (origin === undefined) return undefined
  if (origin === "null") return 'Origin "null" is not allowed'
  if (policy.allowedOrigins?.includes(origin)) return undefined
  const originParts = origin.includes("://") ? hostPartsOf(origin) : undefined
  if (originParts === undefined) return `invalid Origin header: ${origin}`
  if (policy.allowedOrigins) return `Origin "${origin}" is not allowed`
  if (allowed.length > 0)
    return allowed.some((entry) => hostMatches(originParts, entry))
      ? undefined
      : `Origin "${origin}" is not allowed`
  // Any host is accepted: a browser's Origin must then be the server's own (same host as `Host`).
  hostParts ??= host ? hostPartsOf(host) : undefined
  return hostParts !== undefined && hostParts.hostname === originParts.hostname
    ? undefined
    : `Origin "${origin}" is not allowed`
}
