/**
 * Extra routes of `serveHttp`: other HTTP handlers (a web console, a metrics page) served on the MCP
 * server's own listener under a path prefix, after its DNS-rebinding (`Host`/`Origin`) checks and before
 * MCP dispatch. A route does its own authentication: the MCP endpoint's bearer auth does not run for it.
 *
 * @since 0.2.0
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { ConfigError } from "@toolplane/foundation"

/**
 * A handler `serveHttp` serves beside the MCP endpoint: every request whose path is `path` or below it
 * (`path + "/…"`) goes to `handle`, with `node:http`'s own request and response (on the raw transport the
 * connection is handed to `node:http` first). A rejected promise is answered 500 and reported to
 * `onError`.
 *
 * @example
 * ```ts
 * const handle = await serveHttp(service, {
 *   routes: [
 *     {
 *       path: "/healthz",
 *       handle: (_req, res) => {
 *         res.writeHead(200, { "content-type": "text/plain" }).end("ok\n")
 *       },
 *     },
 *   ],
 * })
 * ```
 * @since 0.2.0
 */
export interface HttpRoute {
  /** The prefix, starting with `/`, without a trailing `/` (e.g. `"/console"`). */
  readonly path: string
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>
}

/**
 * The route serving `requestPath`, if any: the route whose path is it, or the longest one it is under.
 *
 * @internal
 */
export const routeFor = (routes: readonly HttpRoute[], requestPath: string): HttpRoute | undefined => {
  let found: HttpRoute | undefined
  for (const route of routes)
    if (
      (requestPath === route.path ||
        (requestPath.startsWith(route.path) && requestPath.charCodeAt(route.path.length) === 47)) &&
      (found === undefined || route.path.length > found.path.length)
    )
      found = route
  return found
}

/** The path of a request target (before `?`). */
export const targetPath = (url: string): string => {
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

/**
 * Checks routes against the endpoint and the metadata document: a route may not take their paths.
 *
 * @internal
 */
export const checkRoutes = (
  routes: readonly HttpRoute[],
  endpoint: string,
  reserved: string,
): readonly HttpRoute[] => {
  const seen = new Set<string>()
  routes.forEach((route, i) => {
    const fail = (reason: string) => new ConfigError({ path: `routes[${i}].path`, reason })
    if (typeof route.handle !== "function")
      throw new ConfigError({ path: `routes[${i}].handle`, reason: "must be a function" })
    if (!/^\/[^\s?#]*$/.test(route.path) || (route.path.length > 1 && route.path.endsWith("/")))
      throw fail(`must start with "/" and not end with "/", got ${JSON.stringify(route.path)}`)
    if (route.path === "/") throw fail('"/" would take the MCP endpoint: use a prefix such as "/console"')
    const under = (a: string, b: string) => a === b || a.startsWith(`${b}/`)
    if (under(endpoint, route.path) || under(route.path, endpoint))
      throw fail(`${route.path} overlaps the MCP endpoint ${endpoint}`)
    if (under(route.path, reserved) || under(reserved, route.path))
      throw fail(`${route.path} overlaps the protected-resource metadata path ${reserved}`)
    if (seen.has(route.path)) throw fail(`${route.path} is routed twice`)
    seen.add(route.path)
  })
  return routes
}
