#!/usr/bin/env node
/**
 * The `toolplane` command. Exit codes: 0 success, 1 the tool (or a backend) reported an error, 2 usage or
 * configuration error.
 *
 * @since 0.1.0
 */
import { run } from "./cli.js"

process.exitCode = await run(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
})
