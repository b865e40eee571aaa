/**
 * What a `toolplane` command is: its name, usage line, grammar (positional arguments and flags) and the
 * function that runs it; plus the exit codes and the usage error every command shares. Imports no command,
 * so commands and the dispatcher both depend on this module and never on each other.
 *
 * @since 0.1.0
 */
import type { GatewayConfig } from "./config/schema.js"

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

/**
 * The flags a command accepts, each with the kind of value it takes (`--json` is a boolean, `--limit 5` a
 * string the command validates).
 *
 * @since 0.1.0
 */
export type Flags = Readonly<Record<string, "string" | "boolean">>

/**
 * Parsed flag values of a command with flags `F`, plus the global `--config`.
 *
 * @since 0.1.0
 */
export type FlagValues<F extends Flags> = {
  readonly [K in keyof F]?: F[K] extends "boolean" ? boolean : string
} & { readonly config?: string; readonly help?: boolean }

/**
 * Parsed command line.
 *
 * @since 0.1.0
 */
export interface Invocation<F extends Flags = Flags> {
  readonly command: string
  readonly positionals: readonly string[]
  readonly values: FlagValues<F>
}

/**
 * What every command receives.
 *
 * @since 0.1.0
 */
export interface CommandContext<F extends Flags = Flags> {
  readonly io: CliIO
  readonly file: string
  readonly config: GatewayConfig
  readonly invocation: Invocation<F>
}

/**
 * One `toolplane` command. Adding a command is writing one module that exports a `Command` and listing it
 * in `commands/registry.ts`; the dispatcher derives parsing, validation and the help text from it.
 *
 * @since 0.1.0
 */
export interface Command<F extends Flags = Flags> {
  /** The word after `toolplane`. */
  readonly name: string
  /** The command's positional arguments as shown in the help (`"QUERY"`), if any. */
  readonly synopsis?: string
  /** One-line description; continuation lines (after `\n`) are indented under it in the help. */
  readonly summary: string
  /** Most positional arguments (a missing one is the command's own usage error, reported after loading). */
  readonly maxPositionals: number
  /** The flags the command accepts besides `--config` and `--help`. */
  readonly flags: F
  /**
   * What each flag does, shown by `toolplane <command> --help` (`{ json: "print JSON" }`); a flag's value
   * placeholder may lead its text (`"N  tools per page"`). Flags without an entry are listed bare.
   * @since 0.1.0
   */
  readonly flagHelp?: { readonly [K in keyof F]?: string }
  /** A few complete command lines (without the leading `toolplane`), shown by `--help`. @since 0.1.0 */
  readonly examples?: readonly string[]
  /**
   * The command works without a configuration file (`toolplane runs`): when the file is missing it still
   * runs, and reading its `config` is the configuration error (file not found). Default false.
   * @since 0.1.0
   */
  readonly configOptional?: boolean
  /** Runs the command with the loaded configuration and returns the exit code. */
  readonly run: (ctx: CommandContext<F>) => Promise<number>
}

/**
 * Declares a command, typing its `run` context by its flags.
 *
 * @since 0.1.0
 */
export const defineCommand = <const F extends Flags>(command: Command<F>): Command =>
  command as unknown as Command
