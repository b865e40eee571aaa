/** Small JSON helpers shared by this plugin's modules. */

/** A JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** Escapes one JSON pointer segment. */
export const esc = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1")
