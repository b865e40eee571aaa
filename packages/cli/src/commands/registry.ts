/**
 * Every `toolplane` command, in the order the help lists them. A new command is one module under
 * `commands/` plus one line here.
 *
 * @since 0.1.0
 */
import type { Command } from "../command.js"
import { auditCommand } from "./audit.js"
import { authCommand } from "./auth.js"
import { callCommand } from "./call.js"
import { checkCommand } from "./check.js"
import { exportCommand } from "./export.js"
import { listCommand } from "./list.js"
import { lockCommand } from "./lock.js"
import { runsCommand } from "./runs.js"
import { searchCommand } from "./search.js"
import { serveCommand } from "./serve.js"

/** @since 0.1.0 */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  listCommand,
  searchCommand,
  callCommand,
  exportCommand,
  checkCommand,
  lockCommand,
  runsCommand,
  auditCommand,
  authCommand,
]
