/** Small JSON helpers shared by this plugin's modules. */

/** Escapes one JSON pointer segment. */
export const esc = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1")
