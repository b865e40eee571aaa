/**
 * End to end over stdio: the official MCP SDK client spawns `toolplane serve --transport stdio` (through
 * tsx) fronting server-everything and a local module. The suite is in helpers/e2eSuite.ts.
 */
import { e2eSuite } from "./helpers/e2eSuite.js"

e2eSuite("stdio")
