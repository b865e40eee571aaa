/**
 * Import: AI SDK tools (`tool()`, `dynamicTool()`, with zod or `jsonSchema` input schemas) as a Toolplane
 * backend, so the runner validates, approves, limits and traces their calls like any other tool.
 *
 * @since 0.1.0
 */
import {
  type Backend,
  defineBackend,
  type FeatureLossWarning,
  InvalidTool,
  type JsonSchema,
  makeTool,
  type Tool,
  ToolNotFound,
  toToolResult,
} from "@toolplane/foundation"
import { asSchema, type ToolSet } from "ai"

/**
 * Options of {@link fromAISDKTools}.
 *
 * @since 0.1.0
 */
export interface FromAISDKToolsOptions {
  /** Backend name and the tools' namespace. Default `"ai"`. */
  readonly namespace?: string
  /**
   * Whether a tool needs approval. Default: `true` for every tool (approval by default), whatever its
   * own `needsApproval` says.
   */
  readonly requiresApproval?: (toolId: string) => boolean | Promise<boolean>
}

/**
 * The backend {@link fromAISDKTools} returns, with the warnings of the conversion.
 *
 * @since 0.1.0
 */
export interface AISDKBackend extends Backend {
  /** Tools left out (no `execute`, provider-executed, a schema that does not convert) and why. */
  readonly warnings: readonly FeatureLossWarning[]
}

const warn = (toolId: string, message: string): FeatureLossWarning => ({
  feature: "tool",
  path: "",
  from: "ai-sdk",
  to: "canonical",
  toolId,
  message,
})

/** The last value of an execute function's result (a value, a promise, or an async iterable of previews). */
const settle = async (value: unknown): Promise<unknown> => {
  if (value !== null && typeof value === "object" && Symbol.asyncIterator in value) {
    let last: unknown
    for await (const v of value as AsyncIterable<unknown>) last = v
    return last
  }
  return value
}

/**
 * Makes a backend of AI SDK tools: ids `namespace/<tool key>`, input schemas converted to JSON Schema
 * (zod, Standard Schema or `jsonSchema`), `execute` called with the call's abort signal and id. A tool's
 * string output becomes text, an object structured content. Tools without `execute` and provider tools
 * are left out with a warning. Tool keys that are not valid tool names are left out with a warning.
 *
 * @example
 * ```ts
 * import { tool as aiTool } from "ai"
 * import { z } from "zod"
 *
 * const forecast = aiTool({
 *   description: "Weather",
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, temp: 21 }),
 * })
 * const backend = await fromAISDKTools({ forecast }, { namespace: "ai", requiresApproval: () => false })
 * // createRunner({ backends: [backend] }) (@toolplane/exec)
 * ```
 * @since 0.1.0
 */
export const fromAISDKTools = async (
  tools: ToolSet,
  options: FromAISDKToolsOptions = {},
): Promise<AISDKBackend> => {
  const namespace = options.namespace ?? "ai"
  const warnings: FeatureLossWarning[] = []
  const canonical: Tool[] = []
  const entries = new Map<string, { readonly key: string; readonly execute: (...a: any[]) => unknown }>()
  for (const [key, t] of Object.entries(tools)) {
    const id = `${namespace}/${key}`
    const native = t as {
      type?: string
      execute?: (...a: any[]) => unknown
      description?: unknown
      title?: unknown
    }
    if (native.type === "provider") {
      warnings.push(warn(id, "provider tools run at the provider and cannot be called from Toolplane"))
      continue
    }
    if (typeof native.execute !== "function") {
      warnings.push(warn(id, "the tool has no execute function"))
      continue
    }
    try {
      const schema = (await asSchema(t.inputSchema).jsonSchema) as JsonSchema
      const { $schema: _s, ...inputSchema } = schema
      canonical.push(
        makeTool({
          id,
          ...(typeof native.description === "string" ? { description: native.description } : {}),
          ...(typeof native.title === "string" ? { title: native.title } : {}),
          inputSchema: inputSchema as JsonSchema,
          metadata: { aiSdk: { name: key } },
        }),
      )
      entries.set(id, { key, execute: native.execute })
    } catch (error) {
      const reason =
        error instanceof InvalidTool ? `${error.path}: ${error.reason}` : (error as Error)?.message
      warnings.push(warn(id, `left out: ${reason ?? String(error)}`))
    }
  }
  const backend = defineBackend({
    name: namespace,
    kind: "ai-sdk",
    toolSchemas: () => canonical,
    requiresApproval: options.requiresApproval ?? (() => true),
    execute: async (call, ctx) => {
      const entry = entries.get(call.toolId)
      if (entry === undefined) throw new ToolNotFound({ toolId: call.toolId, suggestions: [] })
      const output = await settle(
        entry.execute(call.arguments, {
          toolCallId: ctx.callId,
          messages: [],
          abortSignal: ctx.signal,
          context: {},
        }),
      )
      return toToolResult(output)
    },
  })
  return Object.assign(backend, { warnings })
}
