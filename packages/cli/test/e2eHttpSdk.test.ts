/**
 * The end-to-end suite over Streamable HTTP (helpers/e2eSuite.ts) with `toolplane serve
 * --http-transport sdk`: the MCP SDK's server transport instead of the lean one (e2eHttp.test.ts).
 */
import { e2eSuite } from "./helpers/e2eSuite.js"

e2eSuite("http", { httpTransport: "sdk" })
