/**
 * @toolplane/bench-kit: the benchmark kit every Toolplane benchmark uses (private, never published).
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type BenchSettings, benchSettings } from "./env.js"
export {
  closedLoop,
  compareLoad,
  type LoadResults,
  type LoadSample,
  loadTable,
} from "./load.js"
export { clockTicks, parseProcStat, processCpuUs, processThreadsCpuUs } from "./procCpu.js"
export {
  type CallsCpuSample,
  type CpuLoadSample,
  callsWithCpu,
  cpuTable,
  loadWithCpu,
  spawnNodeUntil,
  stopProcess,
} from "./processLoad.js"
export {
  comparisonTable,
  fmt,
  type Goal,
  heading,
  markdownTable,
  roundsLine,
  verdict,
} from "./report.js"
export { type BenchCase, type CaseResult, compare, interleaved, ratio } from "./rounds.js"
export { median, percentile } from "./stats.js"
