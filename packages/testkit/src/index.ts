/**
 * @toolplane/testkit (private, not published): helpers the model-API plugins' tests share, and a
 * throwaway PostgreSQL server (`startPostgres`) for tests of shared storage.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  type ChatServer,
  offeredTools,
  type Reply,
  type ScriptedCall,
  scriptCalls,
  startChatServer,
  toolMessages,
} from "./chatServer.js"
export { everythingServerCommand } from "./everythingServer.js"
export { toolListViolations, toolViolations } from "./functionToolChecker.js"
export {
  CORPUS_SERVERS,
  type CorpusServer,
  type CorpusServerSpec,
  type CorpusTool,
  collectServer,
  corpusFixture,
  fixtureTools,
  type ListedTool,
  liveTools,
  MCP_TOOL_CORPUS_PATH,
} from "./mcpCorpus.js"
export {
  type PostgresServer,
  postgresBinDir,
  postgresUnavailable,
  type StartPostgresOptions,
  startPostgres,
} from "./postgres.js"
export {
  echoViolations,
  ownAt,
  ownKeysAt,
  PROTOTYPE_KEY_PROPERTIES,
  PROTOTYPE_KEYS,
  plainJsonViolations,
  prototypeKeyArguments,
  prototypeKeySchema,
  prototypeKeyService,
  prototypeKeyTool,
} from "./prototypeKeys.js"
export { rootSchemaArb, schemaArb } from "./schemaArbitrary.js"
export { emptyService, PNG, type StubService, stubService, stubTools } from "./stubService.js"
export { toolSetArb } from "./toolSetArbitrary.js"
export {
  aborted,
  add,
  deploy,
  explode,
  inflight,
  LOOP_CALLS,
  makeRunner,
  screenshot,
  slow,
  weather,
} from "./tools.js"
export { WILD_MCP_TOOLS_PATH, type WildMcpTool, wildMcpTools } from "./wildTools.js"
