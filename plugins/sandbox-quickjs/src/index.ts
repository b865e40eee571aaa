/**
 * @toolplane/plugin-sandbox-quickjs: Toolplane's default sandbox. QuickJS compiled to WebAssembly, one
 * capped wasm memory per module, programs in terminable worker threads.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type QuickJsSandboxOptions, quickJsSandbox } from "./quickJsSandbox.js"
