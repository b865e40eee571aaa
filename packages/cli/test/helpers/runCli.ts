// `toolplane <argv>` in this process (`run` from src/cli.ts), with what it wrote.
import { run } from "../../src/cli.js"

/** Runs the CLI with an empty environment in the current directory; its exit code, stdout and stderr. */
export const runCli = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  let stdout = ""
  let stderr = ""
  const code = await run(argv, {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    env: {},
    cwd: process.cwd(),
  })
  return { code, stdout, stderr }
}
