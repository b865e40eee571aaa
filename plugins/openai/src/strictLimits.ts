/**
 * The schema limits of strict mode (OpenAI's documented Structured Outputs limits) and the check the
 * conversion runs on its output.
 *
 * @since 0.1.0
 */
import { escapeJsonPointer, isJsonObject } from "@toolplane/foundation"
import { NotStrict } from "./internal/notStrict.js"
import type { Node } from "./internal/schemaWalk.js"

/**
 * The schema limits of strict mode.
 *
 * @since 0.1.0
 */
export const STRICT_LIMITS = Object.freeze({
  maxProperties: 5000,
  maxDepth: 10,
  maxEnumValues: 1000,
  maxStringChars: 120_000,
  largeEnumThreshold: 250,
  maxLargeEnumChars: 15_000,
})

interface Tally {
  properties: number
  enumValues: number
  chars: number
}

/** Throws `NotStrict` when a converted schema exceeds a limit of {@link STRICT_LIMITS}. */
export const checkStrictLimits = (schema: Node): void => {
  const tally: Tally = { properties: 0, enumValues: 0, chars: 0 }
  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isJsonObject(node)) return
    let d = depth
    if (isJsonObject(node.properties)) {
      d = depth + 1
      if (d > STRICT_LIMITS.maxDepth)
        throw new NotStrict(path, `more than ${STRICT_LIMITS.maxDepth} levels of object nesting`)
      for (const [name, sub] of Object.entries(node.properties)) {
        tally.properties++
        tally.chars += name.length
        visit(sub, `${path}/properties/${escapeJsonPointer(name)}`, d)
      }
    }
    if (Array.isArray(node.enum)) {
      tally.enumValues += node.enum.length
      const strings = node.enum.filter((v): v is string => typeof v === "string")
      const len = strings.reduce((n, s) => n + s.length, 0)
      tally.chars += len
      if (strings.length > STRICT_LIMITS.largeEnumThreshold && len > STRICT_LIMITS.maxLargeEnumChars)
        throw new NotStrict(
          `${path}/enum`,
          `an enum of more than ${STRICT_LIMITS.largeEnumThreshold} values longer than ${STRICT_LIMITS.maxLargeEnumChars} characters in total`,
        )
    }
    if (typeof node.const === "string") tally.chars += node.const.length
    if (isJsonObject(node.$defs))
      for (const [name, sub] of Object.entries(node.$defs)) {
        tally.chars += name.length
        visit(sub, `${path}/$defs/${escapeJsonPointer(name)}`, 0)
      }
    if (Array.isArray(node.anyOf))
      for (const [i, b] of node.anyOf.entries()) visit(b, `${path}/anyOf/${i}`, d)
    if (node.items !== undefined) visit(node.items, `${path}/items`, d)
  }
  visit(schema, "", 0)
  if (tally.properties > STRICT_LIMITS.maxProperties)
    throw new NotStrict("", `${tally.properties} object properties (limit ${STRICT_LIMITS.maxProperties})`)
  if (tally.enumValues > STRICT_LIMITS.maxEnumValues)
    throw new NotStrict("", `${tally.enumValues} enum values (limit ${STRICT_LIMITS.maxEnumValues})`)
  if (tally.chars > STRICT_LIMITS.maxStringChars)
    throw new NotStrict(
      "",
      `${tally.chars} characters of names and enum values (limit ${STRICT_LIMITS.maxStringChars})`,
    )
}
