/**
 * A built toolset: an immutable, sorted snapshot of the tools that passed a selection. Safe to share
 * between concurrent readers: nothing in it can change after `build()`.
 *
 * @since 0.1.0
 */
import type { Tool } from "@toolplane/foundation"
import type { ToolSelection } from "./selection.js"

/**
 * An immutable collection of tools, sorted by id.
 *
 * @since 0.1.0
 */
export class Toolset implements Iterable<Tool> {
  readonly #tools: readonly Tool[]
  readonly #ids: readonly string[]
  readonly #byId: ReadonlyMap<string, Tool>

  /** Use {@link toolset}(...).build(); `tools` must be sorted by id and unique. */
  constructor(
    readonly name: string,
    sorted: readonly Tool[],
    readonly selection: ToolSelection,
  ) {
    this.#tools = Object.freeze([...sorted])
    this.#ids = Object.freeze(this.#tools.map((t) => t.id))
    this.#byId = new Map(this.#tools.map((t) => [t.id, t]))
    Object.freeze(this)
  }

  /** Number of tools. */
  get size(): number {
    return this.#tools.length
  }

  /** Every id, sorted (a frozen array). */
  ids(): readonly string[] {
    return this.#ids
  }

  /** Every tool, sorted by id (a frozen array). */
  tools(): readonly Tool[] {
    return this.#tools
  }

  /** The tool with this id, if it is in the set. */
  get(id: string): Tool | undefined {
    return this.#byId.get(id)
  }

  /** Whether the set holds this id. */
  has(id: string): boolean {
    return this.#byId.has(id)
  }

  [Symbol.iterator](): Iterator<Tool> {
    return this.#tools[Symbol.iterator]()
  }
}
