/**
 * Command dispatch for `toolplane`: argument parsing, config loading and exit codes.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { ConfigError, isToolError } from "@toolplane/foundation"
import { callCommand } from "./commands/call.js"
import { checkCommand } from "./commands/check.js"
import { exportCommand } from "./commands/export.js"
import { listCommand } from "./commands/list.js"
import { searchCommand } from "./commands/search.js"
import { serveCommand } from "./commands/serve.js"
import { loadConfig, locateToml } from "./config/load.js"
import type { GatewayConfig } from "./config/schema.js"
import type { GatewayEvent } from "./gateway.js"

/**
 * Where the CLI writes and what it reads from its process.
 *
 * @since 0.1.0
 */
export interface CliIO {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
}

/** @since 0.1.0 */
export const EXIT = { ok: 0, toolError: 1, usage: 2 } as const

/**
 * A usage mistake (unknown command or flag, missing argument): exit code 2.
 *
 * @since 0.1.0
 */
export class UsageError extends Error {
  readonly _tag = "UsageError"
}

/** @since 0.1.0 */
export const USAGE = `Usage: toolplane <command> [options]

Commands:
  serve                 serve the configured gateway over MCP
                        [--transport stdio|http] [--host 127.0.0.1] [--port N]
  list                  list the gateway's tools [--json]
  search QUERY          search the gateway's tools [--limit N] [--json]
  call TOOL_ID          call a tool [--args JSON] [--json]
  export                export the tools [--format mcp|openai] [--json]
  check                 validate the config, connect every backend, report health [--json]

Options:
  -c, --config FILE     configuration file (default: toolplane.toml, or $TOOLPLANE_CONFIG)
  -h, --help            show this help

Exit codes: 0 success, 1 the tool or a backend reported an error, 2 usage or configuration error.
`

const OPTIONS = {
  config: { type: "string", short: "c" },
  json: { type: "boolean" },
  transport: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  limit: { type: "string" },
  args: { type: "string" },
  format: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const

/**
 * Parsed command line.
 *
 * @since 0.1.0
 */
export interface Invocation {
  readonly command: string
  readonly positionals: readonly string[]
  readonly values: {
    readonly config?: string
    readonly json?: boolean
    readonly transport?: string
    readonly host?: string
    readonly port?: string
    readonly limit?: string
    readonly args?: string
    readonly format?: string
    readonly help?: boolean
  }
}

const COMMANDS = ["serve", "list", "search", "call", "export", "check"]

/** Positional arguments and flags each command accepts (besides --config and --help). */
const GRAMMAR: Record<
  string,
  { readonly positionals: readonly [number, number]; readonly flags: readonly string[] }
> = {
  serve: { positionals: [0, 0], flags: ["transport", "host", "port"] },
  list: { positionals: [0, 0], flags: ["json"] },
  search: { positionals: [1, Number.POSITIVE_INFINITY], flags: ["json", "limit"] },
  call: { positionals: [0, 1], flags: ["json", "args"] },
  export: { positionals: [0, 0], flags: ["json", "format"] },
  check: { positionals: [0, 0], flags: ["json"] },
}

/**
 * Parses argv. Fails with {@link UsageError} naming the unknown command or flag.
 *
 * @since 0.1.0
 */
export const parseInvocation = (argv: readonly string[]): Invocation => {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>
  >
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const [command = "", ...positionals] = parsed.positionals
  if (parsed.values.help || command === "help") return { command: "help", positionals, values: parsed.values }
  if (command === "") throw new UsageError("missing command")
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`)
  const grammar = GRAMMAR[command]!
  if (positionals.length > grammar.positionals[1])
    throw new UsageError(`unexpected argument "${positionals[grammar.positionals[1]]}" for ${command}`)
  for (const flag of Object.keys(parsed.values))
    if (flag !== "config" && flag !== "help" && !grammar.flags.includes(flag))
      throw new UsageError(`--${flag} does not apply to ${command}`)
  return { command, positionals, values: parsed.values }
}

/**
 * Prints gateway start-up progress to stderr.
 *
 * @since 0.1.0
 */
export const progressPrinter =
  (io: CliIO) =>
  (event: GatewayEvent): void => {
    switch (event.type) {
      case "connecting":
        io.stderr(`toolplane: connecting ${event.backend}…\n`)
        break
      case "connected":
        io.stderr(`toolplane: ${event.backend} ready (${event.tools} tools, ${event.ms} ms)\n`)
        break
      case "failed":
        io.stderr(`toolplane: ${event.backend} failed after ${event.ms} ms: ${event.error}\n`)
        break
      case "warning":
        io.stderr(`toolplane: warning: ${event.message}\n`)
    }
  }

/** Splits a formatted key path (`composite_tools[0].tools[1]`, `aliases["a/b"]`) into its segments. */
const parsePath = (path: string): PropertyKey[] => {
  const segments: PropertyKey[] = []
  for (const m of path.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (m[1] !== undefined) segments.push(m[1])
    else if (m[2] !== undefined) segments.push(Number(m[2]))
    else segments.push(JSON.parse(m[3]!) as string)
  }
  return segments
}

/** Adds the line to a configuration error found after loading (an alias or composite naming an unknown tool). */
const withLine = (error: ConfigError): ConfigError => {
  if (error.line !== undefined || error.file === undefined || error.path === "") return error
  let source: string
  try {
    source = readFileSync(error.file, "utf8")
  } catch {
    return error
  }
  const line = error.file.toLowerCase().endsWith(".json")
    ? undefined
    : locateToml(source, parsePath(error.path))
  return line === undefined
    ? error
    : new ConfigError({ path: error.path, reason: error.reason, file: error.file, line })
}

/**
 * Runs the CLI and returns its exit code. Never throws.
 *
 * @since 0.1.0
 */
export const run = async (argv: readonly string[], io: CliIO): Promise<number> => {
  let invocation: Invocation
  try {
    invocation = parseInvocation(argv)
  } catch (error) {
    io.stderr(`toolplane: ${(error as Error).message}\n\n${USAGE}`)
    return EXIT.usage
  }
  if (invocation.command === "help") {
    io.stdout(USAGE)
    return EXIT.ok
  }
  try {
    const file = resolve(io.cwd, invocation.values.config ?? io.env.TOOLPLANE_CONFIG ?? "toolplane.toml")
    const config: GatewayConfig = await loadConfig(file)
    const context = { io, file, config, invocation }
    switch (invocation.command) {
      case "serve":
        return await serveCommand(context)
      case "list":
        return await listCommand(context)
      case "search":
        return await searchCommand(context)
      case "call":
        return await callCommand(context)
      case "export":
        return await exportCommand(context)
      default:
        return await checkCommand(context)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`toolplane: ${error.message}\n\n${USAGE}`)
      return EXIT.usage
    }
    if (error instanceof ConfigError) {
      io.stderr(`toolplane: configuration error: ${withLine(error).message}\n`)
      return EXIT.usage
    }
    if (isToolError(error)) {
      io.stderr(`toolplane: ${error._tag}: ${error.message}\n`)
      return EXIT.toolError
    }
    io.stderr(`toolplane: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`)
    return EXIT.toolError
  }
}

/**
 * What every command receives.
 *
 * @since 0.1.0
 */
export interface CommandContext {
  readonly io: CliIO
  readonly file: string
  readonly config: GatewayConfig
  readonly invocation: Invocation
}
