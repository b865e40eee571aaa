/**
 * Why an MCP backend could not connect, in words an operator can act on: the command was not found,
 * the server exited (with its code and the end of its stderr), it did not answer `initialize` in time,
 * or nothing listens at its URL, each with what to try.
 *
 * @since 0.1.0
 */
import type { BackendConfig } from "./config/schema.js"

/** Environment variables a server behind a proxy or a private registry usually needs. */
const NETWORK_VARIABLES =
  '"NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "npm_config_registry"'

/**
 * The reason a backend failed to connect, with its likely cause and what to try. `message` is the
 * connection error's text; `index` the backend's position in `backends`.
 *
 * @since 0.1.0
 */
export const explainConnectFailure = (
  backend: BackendConfig,
  index: number,
  message: string,
  options: { readonly connectTimeoutMs: number },
): string => {
  const reason = message.replace(/^Backend "[^"]*" is unavailable: /, "").replace(/^cannot connect: /, "")
  const key = `backends[${index}]`
  const mcp = backend.mcp
  if (mcp === undefined) return reason
  if ("command" in mcp) {
    if (/\bENOENT\b/.test(reason))
      return `command "${mcp.command}" not found (looked in node_modules/.bin above the config file, then PATH): install it (e.g. npm install -D <its package>), or set ${key}.mcp.command to its absolute path`
    if (/\bEACCES\b/.test(reason))
      return `command "${mcp.command}" is not executable (EACCES): chmod +x it, or run it through its interpreter (command = "node", args = ["server.js"])`
    const exited = /\(server exited with ([^)]*)\)/.exec(reason)
    if (exited !== null || /Connection closed/i.test(reason)) {
      const stderr = /\(stderr: (.*)\)\s*$/.exec(reason)?.[1]
      return `the server exited before answering initialize${exited === null ? "" : ` (${exited[1]})`}${
        stderr === undefined ? "; it wrote nothing to stderr" : `; the end of its stderr: ${stderr}`
      }`
    }
    if (/timed out/i.test(reason))
      return `no answer to initialize within ${options.connectTimeoutMs} ms: the server may still be installing (npx -y) or be stuck reaching a network or registry. Raise limits.connect_timeout_ms; if it needs a proxy or CA certificates, pass them with ${key}.mcp.env_passthrough = [${NETWORK_VARIABLES}] (stdio servers get only HOME, LOGNAME, PATH, SHELL, TERM and USER plus mcp.env)`
    return reason
  }
  if (/ECONNREFUSED/.test(reason))
    return `nothing listens at ${mcp.url} (connection refused): is the server running?`
  if (/ENOTFOUND|EAI_AGAIN/.test(reason)) return `cannot resolve the host of ${mcp.url}: ${reason}`
  if (/timed out/i.test(reason))
    return `no answer to initialize from ${mcp.url} within ${options.connectTimeoutMs} ms; raise limits.connect_timeout_ms if the server is slow to start`
  return reason
}

/**
 * The environment a stdio backend adds to the MCP SDK's default (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER): the variables named in `passthrough` (exact names, or a prefix ending in `*`) that are set in
 * `env`, then the backend's own `mcp.env`, which wins.
 *
 * @since 0.1.0
 */
export const stdioEnvironment = (
  passthrough: readonly string[],
  env: NodeJS.ProcessEnv,
  own: Readonly<Record<string, string>>,
): Record<string, string> => {
  const passed: Record<string, string> = {}
  for (const name of passthrough) {
    const prefix = name.endsWith("*") ? name.slice(0, -1) : undefined
    for (const [key, value] of Object.entries(env))
      if (value !== undefined && (prefix === undefined ? key === name : key.startsWith(prefix)))
        passed[key] = value
  }
  return { ...passed, ...own }
}
