/**
 * Import: LangChain tools (`tool()`, `DynamicStructuredTool`, any `StructuredToolInterface`, with zod or
 * JSON Schema) as a Toolplane backend, so the runner validates, approves, limits and traces their calls.
 *
 * @since 0.1.0
 */
import type { StructuredToolInterface } from "@langchain/core/tools"
import { toJsonSchema } from "@langchain/core/utils/json_schema"
import {
  type Backend,
  defineBackend,
  type FeatureLossWarning,
  InvalidTool,
  type JsonSchema,
  makeTool,
  type Tool,
  ToolNotFound,
} from "@toolplane/foundation"
import { fromLangChainOutput } from "./internal/content.js"

/**
 * Options of {@link fromLangChainTools}.
 *
 * @since 0.1.0
 */
export interface FromLangChainToolsOptions {
  /** Backend name and the tools' namespace. Default `"langchain"`. */
  readonly namespace?: string
  /** Whether a tool needs approval. Default: `true` for every tool (approval by default). */
  readonly requiresApproval?: (toolId: string) => boolean | Promise<boolean>
}

/**
 * The backend {@link fromLangChainTools} returns, with the warnings of the conversion.
 *
 * @since 0.1.0
 */
export interface LangChainBackend extends Backend {
  /** Tools left out (a name or schema that does not convert) and why. */
  readonly warnings: readonly FeatureLossWarning[]
}

/**
 * Makes a backend of LangChain tools: ids `namespace/<tool name>`, schemas converted to JSON Schema,
 * calls made with `tool.invoke(args, { signal, runName })` and the call's abort signal. A string output
 * becomes text, a `ToolMessage` its content (`status: "error"` as a failed result), an object
 * structured content; anything the tool throws becomes `ExecutionFailed` with its message.
 *
 * @example
 * ```ts
 * import { tool as lcTool } from "@langchain/core/tools"
 * import { z } from "zod"
 *
 * const search = lcTool(async ({ q }) => `results for ${q}`, {
 *   name: "search",
 *   description: "Web search",
 *   schema: z.object({ q: z.string() }),
 * })
 * const backend = fromLangChainTools([search], { requiresApproval: () => false })
 * // createRunner({ backends: [backend] }) (@toolplane/exec)
 * ```
 * @since 0.1.0
 */
export const fromLangChainTools = (
  tools: readonly StructuredToolInterface[],
  options: FromLangChainToolsOptions = {},
): LangChainBackend => {
  const namespace = options.namespace ?? "langchain"
  const warnings: FeatureLossWarning[] = []
  const canonical: Tool[] = []
  const byId = new Map<string, StructuredToolInterface>()
  for (const t of tools) {
    const id = `${namespace}/${t.name}`
    try {
      const { $schema: _s, ...inputSchema } = toJsonSchema(t.schema as never) as JsonSchema
      canonical.push(
        makeTool({
          id,
          ...(typeof t.description === "string" && t.description !== ""
            ? { description: t.description }
            : {}),
          inputSchema: (inputSchema.type === undefined
            ? { ...inputSchema, type: "object" }
            : inputSchema) as JsonSchema,
          metadata: { langchain: { name: t.name } },
        }),
      )
      byId.set(id, t)
    } catch (error) {
      const reason =
        error instanceof InvalidTool ? `${error.path}: ${error.reason}` : (error as Error)?.message
      warnings.push({
        feature: "tool",
        path: "",
        from: "langchain",
        to: "canonical",
        toolId: id,
        message: `left out: ${reason ?? String(error)}`,
      })
    }
  }
  const backend = defineBackend({
    name: namespace,
    kind: "langchain",
    toolSchemas: () => canonical,
    requiresApproval: options.requiresApproval ?? (() => true),
    execute: async (call, ctx) => {
      const t = byId.get(call.toolId)
      if (t === undefined) throw new ToolNotFound({ toolId: call.toolId, suggestions: [] })
      const output = await t.invoke(call.arguments as never, { signal: ctx.signal, runName: t.name })
      return fromLangChainOutput(output)
    },
  })
  return Object.assign(backend, { warnings })
}
