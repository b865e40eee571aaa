/**
 * Random sets of tools with distinct ids (segments of letters, digits, `_`, `.` and `-`, the namespace
 * without dots) and no arguments: for checking that a plugin's tool names are valid, unique and lead
 * back to their ids.
 */
import type { Tool } from "@toolplane/foundation"
import fc from "fast-check"

const segment = fc.stringMatching(/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,40}$/)

/**
 * Up to 25 tools with distinct ids.
 *
 * @since 0.1.0
 */
export const toolSetArb = (): fc.Arbitrary<Tool[]> =>
  fc.uniqueArray(fc.tuple(segment, segment), { maxLength: 25 }).map((pairs) =>
    [...new Set(pairs.map(([a, b]) => `${a.replace(/\./g, "_")}/${b}`))].map(
      (id) =>
        ({
          id,
          namespace: id.split("/")[0]!,
          name: id.split("/")[1]!,
          inputSchema: { type: "object" },
        }) as Tool,
    ),
  )
