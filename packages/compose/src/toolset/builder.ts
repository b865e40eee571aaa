/**
 * The toolset builder: sources, then filters AND-composed in the order they were added, then policies.
 * Each method returns a new builder (builders are immutable too), and `build()` validates the sources
 * and returns an immutable {@link Toolset}.
 *
 * @since 0.1.0
 */
import { ConfigError, InvalidTool, parseToolId, type Tool, ToolConflict } from "@toolplane/foundation"
import {
  allowIds,
  byAnnotations,
  byCategory,
  byNamespace,
  denyIds,
  hideDestructive,
  readOnlyOnly,
  type ToolFilter,
  tagsAll,
  tagsAny,
  tagsNone,
} from "./filters.js"
import type { Policy } from "./policies.js"
import { type LabeledFilter, makeSelection, type ToolSelection } from "./selection.js"
import { Toolset } from "./toolset.js"

/**
 * Anything that lists tools synchronously, such as discovery's `ToolIndex`.
 *
 * @since 0.1.0
 */
export interface ToolIndexLike {
  list(): readonly Tool[]
}

/**
 * Tag filter options of {@link ToolsetBuilder.tags}.
 *
 * @since 0.1.0
 */
export interface TagFilterOptions {
  /** Keep tools with at least one of these tags. */
  readonly any?: readonly string[]
  /** Keep tools with all of these tags. */
  readonly all?: readonly string[]
  /** Keep tools with none of these tags. */
  readonly none?: readonly string[]
}

interface Source {
  readonly label: string
  readonly read: () => Iterable<Tool | null | undefined>
}

interface State {
  readonly name: string
  readonly sources: readonly Source[]
  readonly filters: readonly LabeledFilter[]
  readonly policies: readonly Policy[]
}

/**
 * Builds a {@link Toolset}.
 *
 * @since 0.1.0
 */
export class ToolsetBuilder {
  readonly #state: State

  /** Use {@link toolset}. */
  constructor(state: State) {
    this.#state = state
  }

  get name(): string {
    return this.#state.name
  }

  #with(patch: Partial<State>): ToolsetBuilder {
    return new ToolsetBuilder({ ...this.#state, ...patch })
  }

  #filter(label: string, test: ToolFilter): ToolsetBuilder {
    return this.#with({ filters: [...this.#state.filters, { label, test }] })
  }

  /** Adds tools as a source (read when `build()` runs). */
  fromTools(tools: Iterable<Tool>, label = `tools#${this.#state.sources.length + 1}`): ToolsetBuilder {
    const snapshot = [...tools]
    return this.#with({ sources: [...this.#state.sources, { label, read: () => snapshot }] })
  }

  /** Adds an index (anything with `list()`, e.g. discovery's `ToolIndex`) as a source, read at `build()`. */
  fromIndex(index: ToolIndexLike, label = `index#${this.#state.sources.length + 1}`): ToolsetBuilder {
    if (index === null || typeof index !== "object" || typeof index.list !== "function")
      throw new ConfigError({
        path: `toolset(${this.#state.name}).sources[${this.#state.sources.length}]`,
        reason: "an index source must have a list() method",
      })
    return this.#with({ sources: [...this.#state.sources, { label, read: () => index.list() }] })
  }

  /** Keeps tools of these namespaces. */
  namespace(...namespaces: readonly string[]): ToolsetBuilder {
    return this.#filter(`namespace(${namespaces.join(",")})`, byNamespace(...namespaces))
  }

  /** Tag filters (`any`, `all`, `none`; each given option is one filter, in that order). */
  tags(options: TagFilterOptions): ToolsetBuilder {
    let next: ToolsetBuilder = this
    if (options.any) next = next.#filter(`tags(any: ${options.any.join(",")})`, tagsAny(...options.any))
    if (options.all) next = next.#filter(`tags(all: ${options.all.join(",")})`, tagsAll(...options.all))
    if (options.none) next = next.#filter(`tags(none: ${options.none.join(",")})`, tagsNone(...options.none))
    return next
  }

  /** Keeps tools of these categories. */
  category(...categories: readonly string[]): ToolsetBuilder {
    return this.#filter(`category(${categories.join(",")})`, byCategory(...categories))
  }

  /** Keeps tools whose id matches a pattern (exact, glob or `re:`; see `allowIds`). */
  allow(...patterns: readonly string[]): ToolsetBuilder {
    return this.#filter(`allow(${patterns.join(",")})`, allowIds(...patterns))
  }

  /** Drops tools whose id matches a pattern (exact, glob or `re:`). */
  deny(...patterns: readonly string[]): ToolsetBuilder {
    return this.#filter(`deny(${patterns.join(",")})`, denyIds(...patterns))
  }

  /** Keeps only read-only tools. */
  readOnly(): ToolsetBuilder {
    return this.#filter("readOnly", readOnlyOnly)
  }

  /** Hides destructive tools (see `hideDestructive`). */
  hideDestructive(options: { readonly assumeDestructive?: boolean } = {}): ToolsetBuilder {
    return this.#filter("hideDestructive", hideDestructive(options))
  }

  /** Keeps tools whose annotations satisfy `predicate`. */
  annotations(predicate: (annotations: NonNullable<Tool["annotations"]>) => boolean): ToolsetBuilder {
    return this.#filter("annotations", byAnnotations(predicate))
  }

  /** Adds a custom filter. */
  filter(predicate: ToolFilter, label = "custom"): ToolsetBuilder {
    if (typeof predicate !== "function")
      throw new ConfigError({
        path: `toolset(${this.#state.name}).filters[${this.#state.filters.length}]`,
        reason: "a filter must be a function (tool) => boolean",
      })
    return this.#filter(label, predicate)
  }

  /** Appends policies (evaluated after all filters, in order, first decision wins). */
  policy(...policies: readonly Policy[]): ToolsetBuilder {
    policies.forEach((p, i) => {
      if (p === null || typeof p !== "object" || typeof p.decide !== "function")
        throw new ConfigError({
          path: `toolset(${this.#state.name}).policies[${this.#state.policies.length + i}]`,
          reason: "a policy must have a decide(tool) method",
        })
    })
    return this.#with({ policies: [...this.#state.policies, ...policies] })
  }

  /** The filters and policies as a reusable predicate (what `capabilityFilter` applies). */
  selection(): ToolSelection {
    return makeSelection(this.#state.filters, this.#state.policies)
  }

  /**
   * Reads the sources, validates every tool and returns the immutable snapshot. Fails with
   * `ConfigError` when there is no source or a source yields a missing tool, `InvalidTool` for a
   * malformed tool, and `ToolConflict` when two different tools share an id.
   */
  build(): Toolset {
    const { name, sources } = this.#state
    const where = `toolset(${name})`
    if (sources.length === 0)
      throw new ConfigError({
        path: `${where}.sources`,
        reason: "no source: add tools with fromTools(...) or fromIndex(...)",
      })
    const selection = this.selection()
    const seen = new Map<string, { tool: Tool; label: string }>()
    const kept: Tool[] = []
    sources.forEach((source, s) => {
      let j = 0
      for (const tool of source.read()) {
        checkTool(tool, `${where}.sources[${s}][${j}]`)
        const previous = seen.get(tool.id)
        if (previous) {
          if (previous.tool !== tool)
            throw new ToolConflict({ toolId: tool.id, backends: [previous.label, source.label] })
        } else {
          seen.set(tool.id, { tool, label: source.label })
          if (selection.admits(tool)) kept.push(tool)
        }
        j++
      }
    })
    kept.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return new Toolset(name, kept, selection)
  }
}

function checkTool(tool: Tool | null | undefined, path: string): asserts tool is Tool {
  if (tool === null || tool === undefined || typeof tool !== "object")
    throw new ConfigError({ path, reason: `missing tool (got ${tool === null ? "null" : typeof tool})` })
  const { namespace, name } = parseToolId(tool.id)
  if (tool.namespace !== namespace || tool.name !== name)
    throw new InvalidTool({
      toolId: tool.id,
      path: tool.namespace !== namespace ? "namespace" : "name",
      reason: `"${tool.namespace}/${tool.name}" disagrees with the id`,
    })
  if (typeof tool.inputSchema !== "object" || tool.inputSchema === null || Array.isArray(tool.inputSchema))
    throw new InvalidTool({ toolId: tool.id, path: "inputSchema", reason: "must be a JSON Schema object" })
}

/**
 * Starts a toolset builder.
 *
 * @example
 * ```ts
 * const github = toolset("github-readonly")
 *   .fromTools(tools)
 *   .namespace("github")
 *   .readOnly()
 *   .policy(denyTags("admin"), allowAll())
 *   .build()
 * github.ids() // sorted
 * ```
 * @since 0.1.0
 */
export const toolset = (name: string): ToolsetBuilder => {
  if (typeof name !== "string" || name.trim() === "")
    throw new ConfigError({ path: "toolset.name", reason: "a toolset needs a non-empty name" })
  return new ToolsetBuilder({ name, sources: [], filters: [], policies: [] })
}
