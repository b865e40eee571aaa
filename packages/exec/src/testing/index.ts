/**
 * Contract test suites for implementers of exec's contracts. Run them from a vitest test file:
 *
 * ```ts
 * import { sandboxContract } from "@toolplane/exec/testing"
 * import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
 * sandboxContract("quickjs", () => quickJsSandbox())
 * ```
 *
 * @since 0.1.0
 */
export { type SandboxContractOptions, sandboxContract } from "./sandboxContract.js"
