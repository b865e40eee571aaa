/**
 * SEP-1034 elicitation defaults on the client side: an accepted answer to `elicitation/create` gets the
 * requested schema's `default` for every top-level field it leaves out, before it goes back to the
 * server (a form the user accepted untouched stands for its defaults).
 *
 * @since 0.2.0
 */

/**
 * `result` with the requested schema's defaults filled in for fields an `accept` left out; any other
 * answer (decline, cancel, no schema, no defaults) is returned as it is.
 *
 * @internal
 */
export const withElicitationDefaults = (params: unknown, result: unknown): unknown => {
  const answer = result as { action?: unknown; content?: unknown } | undefined
  if (answer?.action !== "accept") return result
  const properties = (params as { requestedSchema?: { properties?: unknown } } | undefined)?.requestedSchema
    ?.properties
  if (typeof properties !== "object" || properties === null) return result
  const content =
    typeof answer.content === "object" && answer.content !== null && !Array.isArray(answer.content)
      ? (answer.content as Record<string, unknown>)
      : {}
  let filled: Record<string, unknown> | undefined
  for (const [field, schema] of Object.entries(properties as Record<string, unknown>)) {
    const fallback = (schema as { default?: unknown } | null)?.default
    if (fallback === undefined || Object.hasOwn(content, field)) continue
    filled ??= { ...content }
    filled[field] = fallback
  }
  return filled === undefined ? result : { ...answer, content: filled }
}
