/**
 * Command dispatch for `toolplane`: argument parsing and help derived from the command registry, config
 * loading and exit codes.
 *
 * @since 0.1.0
 */
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { ConfigError, isToolError } from "@toolplane/foundation"
import { type CliIO, type Command, EXIT, type Invocation, UsageError } from "./command.js"
import { COMMANDS } from "./commands/registry.js"
import { configProblems, loadConfig, locateToml } from "./config/load.js"
import type { GatewayConfig } from "./config/schema.js"
import { didYouMean } from "./didYouMean.js"

export { type CliIO, type CommandContext, EXIT, type Invocation, UsageError } from "./command.js"

/** Indentation of a summary in the command list of the help text. */
const SUMMARY_COLUMN = 24

const commandLine = (command: Command): string => {
  const head = `  ${command.name}${command.synopsis === undefined ? "" : ` ${command.synopsis}`}`
  const [first, ...rest] = command.summary.split("\n")
  const indent = " ".repeat(SUMMARY_COLUMN)
  // A head as wide as the column gets its summary on the next line instead of running into it.
  const lead =
    head.length < SUMMARY_COLUMN - 1
      ? [`${head.padEnd(SUMMARY_COLUMN)}${first}`]
      : [head, `${indent}${first}`]
  return [...lead, ...rest.map((line) => `${indent}${line}`)].join("\n")
}

const GLOBAL_OPTIONS = `  -c, --config FILE     configuration file (default: toolplane.toml, or $TOOLPLANE_CONFIG)
  -h, --help            show this help (toolplane <command> --help: the command's)
  -v, --version         print the version`

const EXIT_CODES =
  "Exit codes: 0 success, 1 the tool or a backend reported an error, 2 usage or configuration error."

/** @since 0.1.0 */
export const USAGE = `Usage: toolplane <command> [options]

Commands:
${COMMANDS.map(commandLine).join("\n")}

Options:
${GLOBAL_OPTIONS}

${EXIT_CODES}
`

/**
 * The help of one command: its usage line, what it does, its flags and examples.
 *
 * @since 0.1.0
 */
export const commandUsage = (command: Command): string => {
  const [first, ...rest] = command.summary.split("\n")
  // The summary's bracketed flag list is what the Options section spells out.
  const description = [first!.replace(/\s*\[.*$/, ""), ...rest.filter((line) => !/^\[/.test(line))]
  const flags = Object.entries(command.flags).map(([flag, kind]) => {
    const text = (command.flagHelp as Record<string, string | undefined> | undefined)?.[flag] ?? ""
    const placeholder = /^(\S+) {2,}(.*)$/.exec(text)
    const head = `  --${flag}${kind === "string" ? ` ${placeholder?.[1] ?? "VALUE"}` : ""}`
    const body = placeholder?.[2] ?? text
    return body === ""
      ? head
      : head.length < SUMMARY_COLUMN - 1
        ? `${head.padEnd(SUMMARY_COLUMN)}${body}`
        : `${head}\n${" ".repeat(SUMMARY_COLUMN)}${body}`
  })
  return [
    `Usage: toolplane ${command.name}${command.synopsis === undefined ? "" : ` ${command.synopsis}`} [options]`,
    "",
    description.join("\n"),
    "",
    "Options:",
    ...flags,
    GLOBAL_OPTIONS,
    ...(command.examples?.length
      ? ["", "Examples:", ...command.examples.map((example) => `  toolplane ${example}`)]
      : []),
    "",
    EXIT_CODES,
    "",
  ].join("\n")
}

/** The version of this package, read from its manifest (`--version`). */
const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
    .version

type OptionSpec = { readonly type: "string" | "boolean"; readonly short?: string }

/** The global options plus every command's flags (one flag means the same kind of value everywhere). */
const OPTIONS: Record<string, OptionSpec> = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
}
for (const command of COMMANDS)
  for (const [flag, type] of Object.entries(command.flags)) {
    const known = OPTIONS[flag]
    if (known !== undefined && known.type !== type)
      throw new Error(`toolplane: flag --${flag} of ${command.name} is a ${type}, elsewhere a ${known.type}`)
    OPTIONS[flag] = { type }
  }

const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]))

/** Node's parseArgs message, first sentence only, with the closest known flag. */
const parseArgsMessage = (error: Error & { code?: string }): string => {
  const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(error.message)
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== null)
    return `Unknown option '${unknown[1]}${unknown[2]}'${didYouMean(unknown[2]!, Object.keys(OPTIONS)).replace(/"(.*)"/, '"--$1"')}`
  return error.message
}

/**
 * Parses argv. Fails with {@link UsageError} naming the unknown command or flag.
 *
 * @since 0.1.0
 */
export const parseInvocation = (argv: readonly string[]): Invocation => {
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(parseArgsMessage(error as Error))
  }
  const values = parsed.values as Invocation["values"]
  const [command = "", ...positionals] = parsed.positionals
  if ((values as { version?: boolean }).version) return { command: "version", positionals, values }
  if (command === "help") return { command: "help", positionals, values }
  if (values.help) return { command: "help", positionals: command === "" ? [] : [command], values }
  if (command === "") throw new UsageError("missing command")
  const spec = BY_NAME.get(command)
  if (spec === undefined)
    throw new UsageError(`unknown command "${command}"${didYouMean(command, BY_NAME.keys())}`)
  if (positionals.length > spec.maxPositionals)
    throw new UsageError(`unexpected argument "${positionals[spec.maxPositionals]}" for ${command}`)
  for (const flag of Object.keys(values))
    if (flag !== "config" && flag !== "help" && !(flag in spec.flags))
      throw new UsageError(`--${flag} does not apply to ${command}`)
  return { command, positionals, values }
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
 * The configuration of a command that may run without one (`configOptional`) when the file is missing:
 * reading any of it is the configuration error loading it would have been.
 */
const missingConfig = (file: string): GatewayConfig =>
  new Proxy({} as GatewayConfig, {
    get: () => {
      throw new ConfigError({ path: "", reason: "file not found", file })
    },
  })

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
  if (invocation.command === "version") {
    io.stdout(`${packageVersion()}\n`)
    return EXIT.ok
  }
  if (invocation.command === "help") {
    const [topic] = invocation.positionals
    const command = topic === undefined ? undefined : BY_NAME.get(topic)
    if (topic !== undefined && command === undefined) {
      io.stderr(`toolplane: unknown command "${topic}"${didYouMean(topic, BY_NAME.keys())}\n\n${USAGE}`)
      return EXIT.usage
    }
    io.stdout(command === undefined ? USAGE : commandUsage(command))
    return EXIT.ok
  }
  try {
    const file = resolve(io.cwd, invocation.values.config ?? io.env.TOOLPLANE_CONFIG ?? "toolplane.toml")
    const command = BY_NAME.get(invocation.command)!
    const config: GatewayConfig =
      command.configOptional === true && !existsSync(file) ? missingConfig(file) : await loadConfig(file)
    const context = { io, file, config, invocation }
    return await command.run(context)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`toolplane: ${error.message}\n\n${commandUsage(BY_NAME.get(invocation.command)!)}`)
      return EXIT.usage
    }
    if (error instanceof ConfigError) {
      const located = withLine(error)
      if ((invocation.values as { json?: unknown }).json === true)
        io.stdout(
          `${JSON.stringify(
            { ok: false, errors: configProblems(located).map((p) => ({ type: "ConfigError", ...p })) },
            null,
            2,
          )}\n`,
        )
      io.stderr(`toolplane: configuration error: ${located.message}\n`)
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
