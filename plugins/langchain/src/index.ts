/**
 * @toolplane/plugin-langchain: any Toolplane tool service as LangChain structured tools (executed through
 * the service with the run's abort signal, failures as readable tool messages), a helper that runs a chat
 * model's tool calls, and LangChain tools as a Toolplane backend.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  type FromLangChainToolsOptions,
  fromLangChainTools,
  type LangChainBackend,
} from "./fromLangChainTools.js"
export {
  type AIMessageLike,
  type RunLangChainToolCallsOptions,
  runLangChainToolCalls,
} from "./runLangChainToolCalls.js"
export { type LangChainToolSet, type LangChainToolsOptions, toLangChainTools } from "./toLangChainTools.js"
