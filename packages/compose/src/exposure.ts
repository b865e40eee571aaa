/**
 * Exposure: a toolset converted to one protocol's tool shape through any foundation {@link Adapter}.
 *
 * @since 0.1.0
 */
import {
  type Adapter,
  ConfigError,
  ConversionFailed,
  causeOf,
  type FeatureLossWarning,
  isToolError,
  type Tool,
  type ToolError,
  unsupportedFeatures,
} from "@toolplane/foundation"

/**
 * A tool that could not be converted.
 *
 * @since 0.1.0
 */
export interface ExposureError {
  readonly toolId: string
  readonly error: ToolError
}

/**
 * The outcome of {@link Exposure.exportWithWarnings}.
 *
 * @since 0.1.0
 */
export interface ExportReport<Native> {
  /** Converted tools, in toolset (id) order, failures left out. */
  readonly tools: readonly Native[]
  /** Every feature the target cannot express, nested schemas included, deduplicated. */
  readonly warnings: readonly FeatureLossWarning[]
  /** One entry per tool that failed to convert. */
  readonly errors: readonly ExposureError[]
}

/**
 * Anything that yields tools sorted by id, e.g. a {@link Toolset}.
 *
 * @since 0.1.0
 */
export interface ToolSource {
  tools(): readonly Tool[]
}

/**
 * A toolset seen through an adapter.
 *
 * @since 0.1.0
 */
export class Exposure<Native> {
  constructor(
    readonly source: ToolSource,
    readonly adapter: Adapter<Native>,
  ) {
    if (source === null || typeof source !== "object" || typeof source.tools !== "function")
      throw new ConfigError({
        path: "exposure.toolset",
        reason: "a toolset (something with tools()) is required",
      })
    if (adapter === null || typeof adapter !== "object" || typeof adapter.fromCanonical !== "function")
      throw new ConfigError({
        path: "exposure.adapter",
        reason: "an adapter with fromCanonical() is required",
      })
    Object.freeze(this)
  }

  #convert(tool: Tool): { value: Native; warnings: readonly FeatureLossWarning[] } {
    try {
      return this.adapter.fromCanonical(tool)
    } catch (error) {
      if (isToolError(error)) throw error
      throw new ConversionFailed({
        toolId: tool.id,
        adapter: this.adapter.name,
        reason: causeOf(error).message,
      })
    }
  }

  /** Converts every tool; throws the first error (a typed `ToolError`, `ConversionFailed` by default). */
  export(): Native[] {
    return this.source.tools().map((tool) => this.#convert(tool).value)
  }

  /** Converts every tool, collecting warnings and per-tool errors; never stops at a failing tool. */
  exportWithWarnings(): ExportReport<Native> {
    const tools: Native[] = []
    const warnings: FeatureLossWarning[] = []
    const errors: ExposureError[] = []
    const seen = new Set<string>()
    const add = (w: FeatureLossWarning) => {
      const key = `${w.toolId ?? ""}\u0000${w.feature}\u0000${w.path}`
      if (seen.has(key)) return
      seen.add(key)
      warnings.push(w)
    }
    for (const tool of this.source.tools()) {
      let converted: { value: Native; warnings: readonly FeatureLossWarning[] }
      try {
        converted = this.#convert(tool)
      } catch (error) {
        errors.push({ toolId: tool.id, error: error as ToolError })
        continue
      }
      tools.push(converted.value)
      for (const w of converted.warnings) add(w.toolId === undefined ? { ...w, toolId: tool.id } : w)
      if (typeof this.adapter.supportsFeature === "function")
        for (const w of unsupportedFeatures(tool, this.adapter)) add(w)
    }
    return { tools, warnings, errors }
  }
}

/**
 * Exposes a toolset through an adapter.
 *
 * @example
 * ```ts
 * const { tools, warnings, errors } = expose(github, openAIAdapter()).exportWithWarnings()
 * ```
 * @since 0.1.0
 */
export const expose = <Native>(source: ToolSource, adapter: Adapter<Native>): Exposure<Native> =>
  new Exposure(source, adapter)
