/**
 * Tool services and backends built from `defineTool` definitions with foundation alone, for tests,
 * benchmarks, fixture processes and examples that run outside a test runner. Unlike
 * `@toolplane/foundation/testing` (the vitest contract suites, which re-exports these too), this entry
 * imports no test framework, so a program that is not a test can use it without vitest installed.
 *
 * @example
 * ```ts
 * import { defineTool } from "@toolplane/foundation"
 * import { definitionBackend } from "@toolplane/foundation/fixtures"
 *
 * const echo = defineTool({
 *   id: "demo/echo",
 *   input: { type: "object", properties: { text: { type: "string" } } },
 *   handler: async (args: Record<string, unknown>) => args.text,
 * })
 * const backend = definitionBackend([echo], { name: "demo" })
 * ```
 * @since 0.1.0
 */
export { type DefinitionBackendOptions, definitionBackend } from "./definitionBackend.js"
export {
  type DefinitionService,
  type DefinitionServiceOptions,
  definitionService,
} from "./definitionService.js"
