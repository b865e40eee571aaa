/**
 * A throwaway PostgreSQL for the replica test (same surface as `@toolplane/testkit`'s `postgres.ts`,
 * written on the server branch before that one landed; the lead keeps one): `initdb` into a temporary
 * directory, `postgres` on a free loopback port, as the `postgres` user when running as root.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string
  stop(): Promise<void>
}

const binDir = (): string | undefined => {
  const base = "/usr/lib/postgresql"
  if (!existsSync(base)) return undefined
  return readdirSync(base)
    .map((v) => join(base, v, "bin"))
    .filter((d) => existsSync(join(d, "postgres")) && existsSync(join(d, "initdb")))
    .sort()
    .reverse()[0]
}

const root = () => process.getuid?.() === 0

/** Why no server can start here, or `undefined`. */
export const postgresUnavailable = (): string | undefined => {
  if (process.platform === "win32") return "not on Windows"
  if (binDir() === undefined) return "PostgreSQL binaries not found in /usr/lib/postgresql/*/bin"
  if (root())
    try {
      execFileSync("id", ["-u", "postgres"], { stdio: "ignore" })
    } catch {
      return "running as root without a postgres user"
    }
  return undefined
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

const as = (command: string, args: string[]): [string, string[]] =>
  root() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args]

export const startPostgres = async (): Promise<PostgresServer> => {
  const bin = binDir()
  if (!bin) throw new Error(postgresUnavailable())
  const dir = mkdtempSync(join(tmpdir(), "toolplane-pg-"))
  chmodSync(dir, 0o777)
  const data = join(dir, "data")
  if (root()) execFileSync("chown", ["postgres", dir])
  execFileSync(...as(join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]), {
    stdio: "ignore",
  })
  const port = await freePort()
  const child: ChildProcess = spawn(
    ...as(join(bin, "postgres"), [
      "-D",
      data,
      "-p",
      String(port),
      "-h",
      "127.0.0.1",
      "-k",
      dir,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
    ]),
    { stdio: "ignore" },
  )
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const deadline = Date.now() + 30_000
  for (;;) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.end()
      break
    } catch (error) {
      await client.end().catch(() => {})
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL")
        throw error
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  let stopped: Promise<void> | undefined
  return {
    url,
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        }
        if (child.exitCode !== null || child.signalCode !== null) return done()
        child.once("exit", done)
        // SIGINT to the postmaster itself (runuser does not forward it): PostgreSQL's fast shutdown.
        try {
          const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
          process.kill(pid, "SIGINT")
        } catch {
          child.kill("SIGKILL")
        }
      })
      return stopped
    },
  }
}
