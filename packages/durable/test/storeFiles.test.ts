/**
 * The SQLite store's files: created private (`0600`, a folder we create `0700`), looser existing files
 * tightened; the engine's 64-bit ids read exactly; and `node:sqlite` loaded only when a SQLite store is
 * opened, with an error naming the Node version it needs where it is missing.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { registerHooks } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SqlClient from "effect/sql/SqlClient"
import { afterEach, describe, expect, it } from "vitest"
import { openRunStore } from "../src/index.js"
import { nodeSqliteClientLayer } from "../src/internal/nodeSqliteClient.js"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-store-files-"))
  dirs.push(dir)
  return dir
}
const mode = (path: string) => statSync(path).mode & 0o777

describe("the SQLite store's files", () => {
  it("creates runs.db, its -wal and -shm files 0600", async () => {
    const file = join(tempDir(), "runs.db")
    const store = await openRunStore(file)
    try {
      await store.list()
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path), path).toBe(true)
        expect(mode(path).toString(8), path).toBe("600")
      }
    } finally {
      await store.close()
    }
  })

  it("creates a missing folder 0700", async () => {
    const folder = join(tempDir(), "state", "toolplane")
    const store = await openRunStore(join(folder, "runs.db"))
    await store.close()
    expect(mode(folder).toString(8)).toBe("700")
    expect(mode(join(folder, "runs.db")).toString(8)).toBe("600")
  })

  it("tightens an existing store file and its -wal that others could read", async () => {
    const dir = tempDir()
    const file = join(dir, "runs.db")
    writeFileSync(file, "")
    writeFileSync(`${file}-wal`, "")
    chmodSync(file, 0o644)
    chmodSync(`${file}-wal`, 0o666)
    const store = await openRunStore(file)
    await store.close()
    expect(mode(file).toString(8)).toBe("600")
    if (existsSync(`${file}-wal`)) expect(mode(`${file}-wal`).toString(8)).toBe("600")
    // The folder was there already: left as it is.
    expect(mode(dir).toString(8)).toBe("700")
  })

  it("reads integers beyond 2^53 (the engine's ids) exactly, and smaller ones as numbers", async () => {
    const runtime = ManagedRuntime.make(nodeSqliteClientLayer({ filename: join(tempDir(), "ids.db") }))
    try {
      const rows = await runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE m (id INTEGER PRIMARY KEY, n INTEGER)`
          yield* sql`INSERT INTO m (id, n) VALUES (${252418273704939520n}, ${7})`
          const objects = yield* sql<{ id: unknown; n: unknown }>`SELECT id, n FROM m`
          const values = yield* sql`SELECT id, n FROM m`.values
          return { objects, values }
        }),
      )
      expect(String(rows.objects[0]!.id)).toBe("252418273704939520")
      expect(rows.objects[0]!.n).toBe(7)
      expect(String(rows.values[0]![0])).toBe("252418273704939520")
      expect(rows.values[0]![1]).toBe(7)
    } finally {
      await runtime.dispose()
    }
  })
})

describe("without node:sqlite (Node before 22.13)", () => {
  it.runIf(typeof registerHooks === "function")(
    "loads the package, and opening a SQLite store fails naming the Node version it needs",
    () => {
      const dir = tempDir()
      // A process whose Node has no `node:sqlite`, as Node 20's.
      const hook = `data:text/javascript,${encodeURIComponent(
        `import { registerHooks } from "node:module"
         registerHooks({ resolve(specifier, context, next) {
           if (specifier === "node:sqlite") throw Object.assign(new Error("No such built-in module: node:sqlite"), { code: "ERR_UNKNOWN_BUILTIN_MODULE" })
           return next(specifier, context)
         } })`,
      )}`
      const script = `
        const durable = await import(${JSON.stringify(join(import.meta.dirname, "..", "src", "index.ts"))})
        const out = { loaded: typeof durable.openRunStore }
        try { await durable.openRunStore(${JSON.stringify(join(dir, "runs.db"))}); out.opened = true }
        catch (e) { out.tag = e._tag; out.message = e.message }
        console.log(JSON.stringify(out))`
      const child = spawnSync(
        process.execPath,
        [
          "--conditions=@toolplane/source",
          "--import",
          hook,
          "--import",
          "tsx",
          "--no-warnings",
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: join(import.meta.dirname, ".."), encoding: "utf8", timeout: 30_000 },
      )
      const out = JSON.parse(child.stdout.trim().split("\n").pop() || "{}") as Record<string, unknown>
      expect(out, child.stderr).toMatchObject({ loaded: "function", tag: "StorageUnavailable" })
      expect(String(out.message)).toMatch(/node:sqlite/)
      expect(String(out.message)).toMatch(/Node\.js 22\.13/)
      expect(String(out.message)).toContain(process.versions.node)
    },
  )
})
