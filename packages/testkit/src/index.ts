/**
 * @toolplane/testkit (private, not published): helpers the model-API plugins' tests share, and a
 * throwaway PostgreSQL server (`startPostgres`) for tests of shared storage.
 *
 * @packageDocumentation
 * @since 0.2.0
 */
export {
  type ChatServer,
  type Reply,
  type ScriptedCall,
  startChatServer,
  toolMessages,
} from "./chatServer.js"
export { everythingServerCommand } from "./everythingServer.js"
export { toolListViolations, toolViolations } from "./functionToolChecker.js"
export {
  type PostgresServer,
  postgresBinDir,
  postgresUnavailable,
  type StartPostgresOptions,
  startPostgres,
} from "./postgres.js"
export {
  aborted,
  add,
  deploy,
  explode,
  inflight,
  makeRunner,
  screenshot,
  slow,
  weather,
} from "./tools.js"
export { WILD_MCP_TOOLS_PATH, type WildMcpTool, wildMcpTools } from "./wildTools.js"
