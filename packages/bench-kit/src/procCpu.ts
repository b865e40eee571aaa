/**
 * CPU time of another process, read from `/proc/<pid>/stat` (Linux): user + system time of that process
 * alone (its children's time is not included), in microseconds. Used by the gateway benchmarks to charge
 * each gateway process with only its own work.
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

let ticksPerSecond: number | undefined
/** Clock ticks per second of `/proc` times (`getconf CLK_TCK`; 100 on Linux when that is unavailable). */
export const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/**
 * utime + stime (µs) from the text of a `/proc/<pid>/stat` file. The command name (field 2) is in
 * parentheses and may itself contain spaces and parentheses, so fields are counted after the last `)`.
 */
export const parseProcStat = (stat: string, ticks: number): number => {
  const close = stat.lastIndexOf(")")
  if (close < 0) throw new RangeError(`not a /proc/<pid>/stat line: ${JSON.stringify(stat.slice(0, 80))}`)
  // After ") ": field 3 (state) is index 0, so utime (field 14) is index 11 and stime (field 15) index 12.
  const fields = stat.slice(close + 2).split(" ")
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new RangeError(`no utime/stime in /proc/<pid>/stat: ${JSON.stringify(stat.slice(0, 80))}`)
  return ((utime + stime) * 1e6) / ticks
}

/** CPU time (µs) process `pid` used so far; `undefined` where `/proc` is not available or it exited. */
export const processCpuUs = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"), clockTicks())
  } catch {
    return undefined
  }
}

/**
 * CPU time (µs) process `pid` used so far, summed over its threads from `/proc/<pid>/task/<tid>/schedstat`
 * (nanoseconds on the CPU, as the scheduler accounts it): exact, where `/proc/<pid>/stat` counts clock
 * ticks (10 ms each), which at a few hundred calls per round is a visible part of the figure. Falls back
 * to {@link processCpuUs} without schedstat; `undefined` where `/proc` is not available or it exited.
 * Time of threads that exited between two readings is lost (a Node process keeps its threads).
 *
 * @since 0.2.0
 */
export const processThreadsCpuUs = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return undefined
  }
  let ns = 0
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // The thread exited meanwhile.
    }
  }
  return Number.isFinite(ns) && ns > 0 ? ns / 1000 : processCpuUs(pid)
}
