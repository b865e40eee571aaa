// `toolplane <argv>` in this process (`run` from src/cli.ts), with what it wrote.
import { run } from "../../src/cli.js"

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The environment the CLI sees. Default: empty. */
  readonly env?: Record<string, string | undefined>
  /** Sees each piece of standard output as it is written (e.g. a URL to open while the command waits). */
  readonly onStdout?: (text: string) => void
}

/** Runs the CLI in the current directory; its exit code, stdout and stderr. */
export const runCli = async (
  argv: string[],
  options: RunCliOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> => {
  let stdout = ""
  let stderr = ""
  const code = await run(argv, {
    stdout: (t) => {
      stdout += t
      options.onStdout?.(t)
    },
    stderr: (t) => {
      stderr += t
    },
    env: options.env ?? {},
    cwd: process.cwd(),
  })
  return { code, stdout, stderr }
}
