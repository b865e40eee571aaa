/**
 * Contract test suites for implementers of exec's contracts. Run them from a vitest test file:
 *
 * ```ts
 * import { sandboxContract } from "@toolplane/exec/testing"
 * sandboxContract("my sandbox", () => mySandbox())
 * ```
 *
 * @since 0.2.0
 */
export { type SandboxContractOptions, sandboxContract } from "./sandboxContract.js"
