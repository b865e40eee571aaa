#!/usr/bin/env node
/**
 * The `toolplane` command. Exit codes: 0 success, 1 the tool (or a backend) reported an error, 2 usage or
 * configuration error.
 *
 * The Node.js version is checked before anything else is loaded: the durable run store needs
 * `node:sqlite` (Node.js 22), and an older Node would otherwise stop with an unreadable module error.
 *
 * @since 0.1.0
 */
import { unsupportedNode } from "./nodeVersion.js"

const refusal = unsupportedNode(process.versions.node)
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`)
  process.exitCode = 1
} else {
  const { run } = await import("./cli.js")
  process.exitCode = await run(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    cwd: process.cwd(),
  })
}
