/**
 * Pinned tool definitions: the gateway's view of its lock file and the decision, per backend and tool,
 * of what may be served. A tool whose definition (name, title, description, schemas, annotations) hashes
 * to what the lock file records is served; a changed one is served with a warning (`pin = "warn"`) or
 * withheld (`pin = "hold"`) until an operator accepts it (`toolplane lock --accept`). A backend the lock
 * file does not know yet is recorded on first sight; a tool new to a known backend is recorded under
 * `warn` and withheld under `hold`. Every decision is reported once through one `log` function.
 *
 * @since 0.1.0
 */
import { type FSWatcher, watch as watchFs } from "node:fs"
import { basename, dirname } from "node:path"
import {
  type PinnedToolDefinition,
  pinnedToolDefinition,
  type Tool,
  type ToolDefinitionChange,
  toolDefinitionChanges,
  toolDefinitionHash,
} from "@toolplane/foundation"
import {
  formatLockFile,
  type LockedTool,
  type LockFile,
  parseLockFile,
  readLockText,
  writeLockText,
} from "./lockFile.js"

/**
 * What happens when a backend's tool differs from its pinned definition: serve it with a warning,
 * withhold it until accepted, or do not check.
 *
 * @since 0.1.0
 */
export type PinPolicy = "warn" | "hold" | "off"

/**
 * A decision about pinned definitions, for the operator's log.
 *
 * @since 0.1.0
 */
export type PinDecision =
  | {
      /** A backend the lock file did not know: its tools were pinned as they are (first sight). */
      readonly kind: "recorded"
      readonly backend: string
      readonly tools: number
      readonly file: string
    }
  | {
      /** A tool's definition differs from the pinned one. */
      readonly kind: "changed"
      readonly backend: string
      readonly tool: string
      /** The changed top-level fields (`description`, `inputSchema`, ...). */
      readonly fields: readonly string[]
      readonly action: "served" | "held"
    }
  | {
      /** A backend the lock file knows serves a tool it did not have when it was pinned. */
      readonly kind: "new"
      readonly backend: string
      readonly tool: string
      readonly action: "recorded" | "held"
    }
  | { readonly kind: "removed"; readonly backend: string; readonly tool: string }
  | { readonly kind: "unwritable"; readonly file: string; readonly error: string }

/**
 * The one line a decision is logged as (without the `toolplane: ` prefix).
 *
 * @since 0.1.0
 */
export const pinDecisionText = (d: PinDecision): string => {
  switch (d.kind) {
    case "recorded":
      return `pin: ${d.backend}: ${d.tools} tool${d.tools === 1 ? "" : "s"} pinned on first sight in ${d.file}`
    case "changed":
      return d.action === "held"
        ? `pin: ${d.tool} (backend ${d.backend}) changed since it was pinned (${d.fields.join(", ")}); withheld (pin = "hold") until an operator runs: toolplane lock --accept ${d.tool}`
        : `pin: warning: ${d.tool} (backend ${d.backend}) changed since it was pinned (${d.fields.join(", ")}); serving the new definition (pin = "warn"); review it with toolplane lock, accept with toolplane lock --accept ${d.tool}`
    case "new":
      return d.action === "held"
        ? `pin: ${d.tool} is new in backend ${d.backend} since it was pinned; withheld (pin = "hold") until an operator runs: toolplane lock --accept ${d.tool}`
        : `pin: ${d.tool} is new in backend ${d.backend} since it was pinned; pinned as it is (pin = "warn")`
    case "removed":
      return `pin: backend ${d.backend} no longer lists ${d.tool}; toolplane lock --accept ${d.backend} drops it from the lock file`
    case "unwritable":
      return `pin: warning: cannot write the lock file ${d.file} (${d.error}); new pins are kept in memory only`
  }
}

/**
 * One tool of a backend compared with the lock file: `pinned` (same hash), `changed`, `new` (not in the
 * lock file) or `removed` (in the lock file, no longer served by the backend); `held` when it is withheld.
 *
 * @since 0.1.0
 */
export interface PinToolStatus {
  readonly id: string
  readonly status: "pinned" | "changed" | "new" | "removed"
  readonly held: boolean
  /** What differs, for `changed`. */
  readonly changes: readonly ToolDefinitionChange[]
}

/**
 * The pinned definitions of a gateway (one per process: reloads keep it).
 *
 * @since 0.1.0
 */
export interface PinStore {
  /** The lock file in use (after {@link PinStore.load}). */
  readonly file: string | undefined
  /** Increases whenever the pins change other than by first-sight recording (a reload, an acceptance). */
  readonly version: number
  /**
   * Reads the lock file (absent: no pins yet) and sets where decisions are logged. Fails with
   * `ConfigError` naming the file for a malformed or tampered one; the previous pins then stay.
   */
  load(file: string, log?: (decision: PinDecision) => void): Promise<void>
  /** The tools of `backend` that may be served under `policy`; records first sights; logs decisions. */
  review(backend: string, policy: Exclude<PinPolicy, "off">, tools: readonly Tool[]): readonly Tool[]
  /** Whether the last review withheld the tool. */
  isHeld(toolId: string): boolean
  /** Every tool of a reviewed backend against the lock file; `undefined` when it was not reviewed. */
  status(backend: string): readonly PinToolStatus[] | undefined
  /**
   * Makes what the backend serves now the pinned definitions: of one tool, or of every tool of the
   * backend (removed ones are dropped). Returns the ids whose entries changed.
   */
  accept(backend: string, toolId?: string): readonly string[]
  /** Waits until pending entries are written (recording stores). */
  flush(): Promise<void>
  /** Calls `onChange` when another process changes the lock file. Returns a function that stops it. */
  watch(onChange: () => void): () => void
}

type Pins = Map<string, Map<string, LockedTool>>

const toPins = (lock: LockFile): Pins =>
  new Map(Object.entries(lock.backends).map(([name, b]) => [name, new Map(Object.entries(b.tools))] as const))

const fromPins = (pins: Pins): LockFile => ({
  version: 1,
  backends: Object.fromEntries(
    [...pins].map(([name, tools]) => [name, { tools: Object.fromEntries(tools) }] as const),
  ),
})

const clonePins = (pins: Pins): Pins => new Map([...pins].map(([name, tools]) => [name, new Map(tools)]))

/** A change to the pins: applied to memory at once and to the file's current content when written. */
type Edit = (pins: Pins) => boolean

interface Observed {
  readonly definition: PinnedToolDefinition
  readonly hash: string
}

const changedFields = (changes: readonly ToolDefinitionChange[]): string[] => [
  ...new Set(changes.map((c) => c.path.split("/")[1] ?? "")),
]

class Store implements PinStore {
  readonly #record: boolean
  #file: string | undefined
  /** The file's text as last read or written (`undefined`: no file). */
  #text: string | undefined
  /** The file's content as last read or written. */
  #disk: Pins = new Map()
  /** Edits not written yet (all of them, in a store that does not record). */
  #pending: Edit[] = []
  /** The file's content with the pending edits: what decisions are made against. */
  #pins: Pins = new Map()
  #version = 0
  #log: (decision: PinDecision) => void = () => {}
  readonly #logged = new Set<string>()
  readonly #observed = new Map<string, Map<string, Observed>>()
  readonly #held = new Map<string, ReadonlySet<string>>()
  readonly #hashes = new WeakMap<Tool, Observed>()
  #writing: Promise<void> = Promise.resolve()
  #onExternalChange: (() => void) | undefined

  constructor(record: boolean) {
    this.#record = record
  }

  get file(): string | undefined {
    return this.#file
  }

  get version(): number {
    return this.#version
  }

  async load(file: string, log?: (decision: PinDecision) => void): Promise<void> {
    if (log) this.#log = log
    await this.#writing
    const text = await readLockText(file)
    if (file === this.#file && text === this.#text) return
    const disk = text === undefined ? new Map() : toPins(parseLockFile(text, file))
    if (file !== this.#file) this.#pending = []
    this.#file = file
    this.#text = text
    this.#disk = disk
    this.#pins = clonePins(disk)
    for (const edit of this.#pending) edit(this.#pins)
    this.#version++
  }

  #once(key: string, decision: PinDecision): void {
    if (this.#logged.has(key)) return
    this.#logged.add(key)
    this.#log(decision)
  }

  #observe(tool: Tool): Observed {
    let observed = this.#hashes.get(tool)
    if (observed === undefined) {
      const definition = pinnedToolDefinition(tool)
      observed = { definition, hash: toolDefinitionHash(definition) }
      this.#hashes.set(tool, observed)
    }
    return observed
  }

  #edit(edit: Edit): void {
    if (!edit(this.#pins)) return
    this.#pending.push(edit)
    if (this.#record) void this.flush()
  }

  review(backend: string, policy: Exclude<PinPolicy, "off">, tools: readonly Tool[]): readonly Tool[] {
    const seen = new Map(tools.map((tool) => [tool.id, this.#observe(tool)] as const))
    this.#observed.set(backend, seen)
    const locked = this.#pins.get(backend)
    const held = new Set<string>()
    if (locked === undefined) {
      const entries = [...seen].map(([id, o]) => [id, { hash: o.hash, definition: o.definition }] as const)
      this.#edit((pins) => {
        if (pins.has(backend)) return false
        pins.set(backend, new Map(entries))
        return true
      })
      this.#once(`recorded|${backend}|${this.#file}`, {
        kind: "recorded",
        backend,
        tools: entries.length,
        file: this.#file ?? "(no lock file)",
      })
    } else {
      for (const [id, o] of seen) {
        const entry = locked.get(id)
        if (entry === undefined) {
          if (policy === "hold") held.add(id)
          else
            this.#edit((pins) => {
              const tools = pins.get(backend)
              if (tools === undefined || tools.has(id)) return false
              tools.set(id, { hash: o.hash, definition: o.definition })
              return true
            })
          this.#once(`new|${backend}|${id}|${o.hash}|${policy}`, {
            kind: "new",
            backend,
            tool: id,
            action: policy === "hold" ? "held" : "recorded",
          })
        } else if (entry.hash !== o.hash) {
          if (policy === "hold") held.add(id)
          this.#once(`changed|${backend}|${id}|${entry.hash}|${o.hash}|${policy}`, {
            kind: "changed",
            backend,
            tool: id,
            fields: changedFields(toolDefinitionChanges(entry.definition, o.definition)),
            action: policy === "hold" ? "held" : "served",
          })
        }
      }
      for (const [id, entry] of locked)
        if (!seen.has(id))
          this.#once(`removed|${backend}|${id}|${entry.hash}`, { kind: "removed", backend, tool: id })
    }
    this.#held.set(backend, held)
    return held.size === 0 ? tools : tools.filter((tool) => !held.has(tool.id))
  }

  isHeld(toolId: string): boolean {
    for (const held of this.#held.values()) if (held.has(toolId)) return true
    return false
  }

  status(backend: string): readonly PinToolStatus[] | undefined {
    const seen = this.#observed.get(backend)
    if (seen === undefined) return undefined
    const locked = this.#pins.get(backend) ?? new Map<string, LockedTool>()
    const held = this.#held.get(backend) ?? new Set<string>()
    const ids = [...new Set([...seen.keys(), ...locked.keys()])].sort()
    return ids.map((id) => {
      const o = seen.get(id)
      const e = locked.get(id)
      const status =
        e === undefined ? "new" : o === undefined ? "removed" : e.hash === o.hash ? "pinned" : "changed"
      return {
        id,
        status,
        held: held.has(id),
        changes: status === "changed" ? toolDefinitionChanges(e!.definition, o!.definition) : [],
      }
    })
  }

  accept(backend: string, toolId?: string): readonly string[] {
    const seen = this.#observed.get(backend)
    if (seen === undefined) return []
    const locked = this.#pins.get(backend) ?? new Map<string, LockedTool>()
    const ids = toolId !== undefined ? [toolId] : [...new Set([...seen.keys(), ...locked.keys()])].sort()
    const accepted = ids.filter((id) => {
      const o = seen.get(id)
      const e = locked.get(id)
      return o === undefined ? e !== undefined : e?.hash !== o.hash
    })
    if (accepted.length === 0) return []
    const entries = accepted.map((id) => {
      const o = seen.get(id)
      return [id, o && { hash: o.hash, definition: o.definition }] as const
    })
    this.#edit((pins) => {
      let tools = pins.get(backend)
      if (tools === undefined) pins.set(backend, (tools = new Map()))
      for (const [id, entry] of entries) {
        if (entry === undefined) tools.delete(id)
        else tools.set(id, entry)
      }
      return true
    })
    this.#version++
    return accepted
  }

  flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write())
    return this.#writing
  }

  async #write(): Promise<void> {
    const file = this.#file
    if (!this.#record || file === undefined || this.#pending.length === 0) return
    let disk = this.#disk
    let external = false
    let current: string | undefined
    try {
      const text = await readLockText(file)
      current = text
      if (text !== this.#text) {
        // Another process wrote it (an acceptance): the pending first sights go on top of its content.
        disk = text === undefined ? new Map() : toPins(parseLockFile(text, file))
        external = true
      }
    } catch (error) {
      // A corrupt file is not overwritten: the operator sees why at the next load.
      this.#once(`unwritable|${file}|${(error as Error).message}`, {
        kind: "unwritable",
        file,
        error: (error as Error).message,
      })
      return
    }
    const edits = this.#pending
    const next = clonePins(disk)
    let changed = false
    for (const edit of edits) changed = edit(next) || changed
    const text = formatLockFile(fromPins(next))
    try {
      if (changed) await writeLockText(file, text)
    } catch (error) {
      this.#once(`unwritable|${file}|${(error as NodeJS.ErrnoException).code ?? ""}`, {
        kind: "unwritable",
        file,
        error: (error as Error).message,
      })
      return
    }
    this.#pending = this.#pending.slice(edits.length)
    this.#disk = next
    this.#text = changed ? text : current
    if (external) {
      this.#pins = clonePins(next)
      for (const edit of this.#pending) edit(this.#pins)
      this.#version++
      this.#onExternalChange?.()
    }
  }

  watch(onChange: () => void): () => void {
    const file = this.#file
    if (file === undefined) return () => {}
    this.#onExternalChange = onChange
    let timer: ReturnType<typeof setTimeout> | undefined
    const check = async () => {
      await this.#writing
      const text = await readLockText(file).catch(() => this.#text)
      if (text !== this.#text) onChange()
    }
    let watcher: FSWatcher | undefined
    try {
      // The directory, not the file: an atomic replace (rename) ends a watch on the file itself.
      watcher = watchFs(dirname(file), (_event, name) => {
        if (name !== null && name !== basename(file)) return
        clearTimeout(timer)
        timer = setTimeout(() => void check(), 100)
      })
      watcher.on("error", () => {})
    } catch {
      // Without a watch, acceptances take effect at the next reload (SIGHUP).
    }
    return () => {
      clearTimeout(timer)
      watcher?.close()
      if (this.#onExternalChange === onChange) this.#onExternalChange = undefined
    }
  }
}

/**
 * A store of pinned definitions. With `record`, first sights and acceptances are written to the lock
 * file (as `toolplane serve` and `toolplane lock` do); without, they are kept in memory (`list`, `call`,
 * an embedding program), and the lock file is only read.
 *
 * @since 0.1.0
 */
export const pinStore = (options: { readonly record?: boolean } = {}): PinStore =>
  new Store(options.record === true)
