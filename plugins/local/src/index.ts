/**
 * @toolplane/plugin-local: backends for tools that run on this machine. `localBackend` serves
 * `defineTool` definitions in process; `subprocessTool` / `subprocessBackend` run commands with an argv
 * array built from validated arguments.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export * from "./approval.js"
export * from "./LocalBackend.js"
export * from "./Subprocess.js"
export * from "./subprocessTool.js"
