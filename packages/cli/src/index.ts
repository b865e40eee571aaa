/**
 * @toolplane/cli: the `toolplane` command, and the pieces it is made of for programs that embed a
 * gateway (config loading, gateway assembly).
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type CliIO, EXIT, run, USAGE, UsageError } from "./cli.js"
export {
  type ConfigProblem,
  configProblems,
  formatPath,
  loadConfig,
  locateToml,
  parseConfig,
  tomlKeyLines,
} from "./config/load.js"
export { BackendConfig, GatewayConfig } from "./config/schema.js"
export { filterBackend } from "./filterBackend.js"
export {
  type Gateway,
  type GatewayEvent,
  gatewayCursorCodec,
  type OpenGatewayOptions,
  openGateway,
} from "./gateway.js"
export { type LockedTool, type LockFile, parseLockFile } from "./lockFile.js"
export { backendPinPolicy, pinBackend } from "./pinBackend.js"
export {
  type PinDecision,
  type PinPolicy,
  type PinStore,
  type PinToolStatus,
  pinDecisionText,
  pinStore,
} from "./pinStore.js"
export {
  type ClosableReplicaBus,
  type PostgresReplicaBusOptions,
  postgresReplicaBus,
} from "./postgresBus.js"
