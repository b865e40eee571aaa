/**
 * @toolplane/plugin-local: backends for tools that run on this machine. `localBackend` serves
 * `defineTool` definitions in process; `subprocessTool` / `subprocessBackend` run commands with an argv
 * array built from validated arguments.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type ApprovalPolicy, needsApproval } from "./approval.js"
export { type LocalBackend, type LocalBackendOptions, localBackend } from "./localBackend.js"
export { type EnvOptions, runSubprocess, type SubprocessOutput, type SubprocessSpec } from "./subprocess.js"
export { type SubprocessToolOptions, subprocessBackend, subprocessTool } from "./subprocessTool.js"
