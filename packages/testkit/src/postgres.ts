/**
 * A throwaway PostgreSQL server for tests: `initdb` into a temporary directory, `postgres` on a free
 * loopback port (TCP on 127.0.0.1 only, its Unix socket inside the directory), stopped and deleted by
 * `stop()`. Uses the Debian package's binaries (`/usr/lib/postgresql/<version>/bin`, or the directory in
 * `TOOLPLANE_PG_BIN`); `.ci/run` installs the package when they are missing. PostgreSQL refuses to run
 * as root, so as root both commands run as the `postgres` user (`runuser -u postgres --`, the directory
 * chowned to it); otherwise they run directly.
 *
 * ```ts
 * const skip = postgresUnavailable()
 * describe.skipIf(skip !== undefined)(`shared runs${skip ? ` (skipped: ${skip})` : ""}`, () => {
 *   let pg: PostgresServer
 *   beforeAll(async () => { pg = await startPostgres() }, 60_000)
 *   afterAll(() => pg?.stop())
 *   it("connects", () => { expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/) })
 * })
 * ```
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * A running throwaway server.
 *
 * @since 0.1.0
 */
export interface PostgresServer {
  /** Connection URL: `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, no password). */
  readonly url: string
  readonly port: number
  /** The temporary directory (data directory and socket), deleted by `stop()`. */
  readonly dir: string
  /** Fast shutdown (SIGINT to the postmaster), waits for it to exit, deletes the directory. Idempotent. */
  stop(): Promise<void>
}

/**
 * Options of {@link startPostgres}.
 *
 * @since 0.1.0
 */
export interface StartPostgresOptions {
  /**
   * Extra server settings (`-c name=value`). Defaults favour speed for a throwaway server: `fsync=off`,
   * `synchronous_commit=off`, `full_page_writes=off`; pass e.g. `{ fsync: "on" }` to override.
   */
  readonly settings?: Readonly<Record<string, string>>
  /** How long to wait for the server to accept connections, in ms. Default 30 000. */
  readonly timeoutMs?: number
}

const versionOf = (dir: string): number => Number(/postgresql\/(\d+)/.exec(dir)?.[1] ?? 0)

/**
 * The directory holding `initdb` and `postgres`: `TOOLPLANE_PG_BIN` when set, else the newest
 * `/usr/lib/postgresql/<version>/bin`; `undefined` when none has both.
 *
 * @since 0.1.0
 */
export const postgresBinDir = (): string | undefined => {
  const has = (dir: string) => existsSync(join(dir, "postgres")) && existsSync(join(dir, "initdb"))
  const override = process.env.TOOLPLANE_PG_BIN
  if (override) return has(override) ? override : undefined
  const base = "/usr/lib/postgresql"
  if (!existsSync(base)) return undefined
  return readdirSync(base)
    .map((v) => join(base, v, "bin"))
    .filter(has)
    .sort((a, b) => versionOf(b) - versionOf(a))[0]
}

const isRoot = (): boolean => process.getuid?.() === 0

/**
 * Why a PostgreSQL server cannot be started here (for a test's skip message), or `undefined` when it can.
 *
 * @since 0.1.0
 */
export const postgresUnavailable = (): string | undefined => {
  if (process.platform === "win32") return "PostgreSQL test servers are not supported on Windows"
  if (postgresBinDir() === undefined)
    return "PostgreSQL binaries not found (/usr/lib/postgresql/*/bin or TOOLPLANE_PG_BIN; `apt-get install postgresql`)"
  if (isRoot()) {
    try {
      execFileSync("id", ["-u", "postgres"], { stdio: "ignore" })
    } catch {
      return "running as root and there is no `postgres` user to run PostgreSQL as"
    }
  }
  return undefined
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()))
    })
  })

/** `[command, args]`, as the `postgres` user when we are root. */
const asPostgres = (command: string, args: readonly string[]): [string, string[]] =>
  isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]

const live = new Set<() => void>()
let exitHook = false

/**
 * Initializes and starts a throwaway server; resolves once it accepts connections. Throws when
 * {@link postgresUnavailable} names a reason, or when the server does not come up in time (with its log).
 *
 * @since 0.1.0
 */
export const startPostgres = async (options: StartPostgresOptions = {}): Promise<PostgresServer> => {
  const reason = postgresUnavailable()
  if (reason !== undefined) throw new Error(`cannot start PostgreSQL: ${reason}`)
  const bin = postgresBinDir()!
  const dir = mkdtempSync(join(tmpdir(), "toolplane-pg-"))
  const data = join(dir, "data")
  if (isRoot()) {
    execFileSync("chown", ["postgres:postgres", dir])
    chmodSync(dir, 0o700)
  }
  const run = (command: string, args: readonly string[]) => {
    const [cmd, argv] = asPostgres(command, args)
    execFileSync(cmd, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
  }
  try {
    run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? ""
    throw new Error(`initdb failed: ${(error as Error).message}\n${stderr}`)
  }
  const port = await freePort()
  const settings: Record<string, string> = {
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    listen_addresses: "127.0.0.1",
    unix_socket_directories: dir,
    max_connections: "100",
    ...options.settings,
  }
  const [cmd, argv] = asPostgres(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
  ])
  const child: ChildProcess = spawn(cmd, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
  let log = ""
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`PostgreSQL did not start within ${options.timeoutMs ?? 30_000} ms:\n${log}`)),
      options.timeoutMs ?? 30_000,
    )
    const onData = (chunk: Buffer) => {
      log += chunk.toString("utf8")
      if (log.includes("ready to accept connections")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`PostgreSQL exited before accepting connections:\n${log}`))
    })
  })
  /** The postmaster's pid (the child may be `runuser`, which does not forward every signal). */
  const postmaster = (): number | undefined => {
    try {
      return Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
    } catch {
      return undefined
    }
  }
  const signal = (sig: NodeJS.Signals) => {
    const pid = postmaster()
    try {
      if (pid) process.kill(pid, sig)
      else child.kill(sig)
    } catch {}
  }
  const emergency = () => signal("SIGQUIT")
  live.add(emergency)
  if (!exitHook) {
    exitHook = true
    process.once("exit", () => {
      for (const stop of live) stop()
    })
  }
  try {
    await ready
  } catch (error) {
    signal("SIGQUIT")
    live.delete(emergency)
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  let stopping: Promise<void> | undefined
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop: () => {
      stopping ??= (async () => {
        signal("SIGINT")
        const timer = setTimeout(() => signal("SIGQUIT"), 10_000)
        await exited
        clearTimeout(timer)
        live.delete(emergency)
        rmSync(dir, { recursive: true, force: true })
      })()
      return stopping
    },
  }
}
