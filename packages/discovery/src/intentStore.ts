/**
 * Where search mode keeps the intent examples it learns from use (see
 * {@link SearchModeOptions.learn}): a store interface, a JSON file store and an in-memory store.
 *
 * @since 0.1.0
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { SearchError } from "./searchError.js"

/**
 * Learned intent examples, by tool id.
 *
 * @since 0.1.0
 */
export type LearnedIntents = Readonly<Record<string, readonly string[]>>

/**
 * A store of learned intent examples. `load` is called once, before the first search; `save` after
 * each learned example, with the tool's whole (bounded) list. Calls to `save` are not concurrent.
 *
 * @since 0.1.0
 */
export interface IntentStore {
  load(): Promise<LearnedIntents>
  save(toolId: string, intents: readonly string[]): Promise<void>
}

/**
 * An in-memory store (learning that does not survive a restart), optionally pre-filled.
 *
 * @since 0.1.0
 */
export function memoryIntentStore(
  initial: LearnedIntents = {},
): IntentStore & { snapshot(): LearnedIntents } {
  const data = new Map<string, readonly string[]>(Object.entries(initial))
  return {
    load: async () => Object.fromEntries(data),
    save: async (toolId, intents) => {
      data.set(toolId, [...intents])
    },
    snapshot: () => Object.fromEntries(data),
  }
}

/**
 * A store in a JSON file (`{ "tool/id": ["query", ...] }`), created on the first save; each save
 * rewrites the file through a temporary file and a rename, so a crash never leaves it half written.
 * A file that is not such an object fails `load` with a {@link SearchError} naming the path.
 *
 * @example
 * searchMode({ learn: { store: fileIntentStore("./.toolplane/learned-intents.json") } })
 * @since 0.1.0
 */
export function fileIntentStore(path: string): IntentStore {
  if (typeof path !== "string" || path.length === 0)
    throw new SearchError("InvalidOptions", "fileIntentStore: path must be a non-empty string")
  let data: Record<string, readonly string[]> | undefined
  const read = async (): Promise<Record<string, readonly string[]>> => {
    let text: string
    try {
      text = await readFile(path, "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {}
      throw new SearchError("InvalidOptions", `cannot read learned intents from ${path}`, { cause: error })
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (cause) {
      throw new SearchError("InvalidOptions", `learned intents file ${path} is not JSON`, { cause })
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new SearchError("InvalidOptions", `learned intents file ${path} must hold a JSON object`)
    const out: Record<string, readonly string[]> = {}
    for (const [id, list] of Object.entries(parsed as Record<string, unknown>)) {
      if (!Array.isArray(list) || list.some((x) => typeof x !== "string"))
        throw new SearchError(
          "InvalidOptions",
          `learned intents file ${path}: "${id}" must be an array of strings`,
        )
      out[id] = list as string[]
    }
    return out
  }
  return {
    async load() {
      data = await read()
      return { ...data }
    },
    async save(toolId, intents) {
      data ??= await read()
      data[toolId] = [...intents]
      await mkdir(dirname(path), { recursive: true })
      const tmp = `${path}.${process.pid}.tmp`
      await writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`)
      await rename(tmp, path)
    },
  }
}
