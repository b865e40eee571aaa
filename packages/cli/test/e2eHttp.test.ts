/**
 * End to end over Streamable HTTP: `toolplane serve --transport http --port 0` as a subprocess (its URL
 * parsed from stderr), the official MCP SDK client over HTTP. The suite is in helpers/e2eSuite.ts.
 */
import { e2eSuite } from "./helpers/e2eSuite.js"

e2eSuite("http")
