/**
 * Step 2, argument validation: the backend never sees arguments that do not match the schema the caller
 * was shown. A tool made with `defineTool` is validated by its own validator (zod keeps its defaults and
 * transforms), anything else by its compiled JSON Schema.
 *
 * @since 0.1.0
 */
import {
  compileJsonSchema,
  InvalidArguments,
  isToolDefinition,
  type Tool,
  type ValidationResult,
  type Validator,
} from "@toolplane/foundation"

/**
 * The input validator of a tool as listed. When an enricher changed the input schema, the listed schema
 * is compiled and `backendRevalidates` is true: the backend then validates the transformed arguments
 * against its own schema too.
 *
 * @since 0.1.0
 */
export const inputValidatorOf = (
  served: Tool,
  listed: Tool,
): { readonly validator: Validator; readonly backendRevalidates: boolean } => {
  if (listed.inputSchema === served.inputSchema && isToolDefinition(served))
    return { validator: served.inputValidator, backendRevalidates: false }
  return {
    validator: compileJsonSchema(listed.inputSchema, listed.id),
    backendRevalidates: listed.inputSchema !== served.inputSchema,
  }
}

/**
 * The output validator of a tool, when it declares an output schema.
 *
 * @since 0.1.0
 */
export const outputValidatorOf = (served: Tool): Validator | undefined => {
  if (served.outputSchema === undefined) return undefined
  if (isToolDefinition(served) && served.outputValidator) return served.outputValidator
  return compileJsonSchema(served.outputSchema, served.id)
}

/**
 * Fails with {@link InvalidArguments} for a failed validation, else returns the validated value.
 *
 * @since 0.1.0
 */
export const checkedArgs = (
  toolId: string,
  result: ValidationResult<unknown>,
): Readonly<Record<string, unknown>> => {
  if (!result.ok) throw new InvalidArguments({ toolId, issues: result.issues })
  return result.value as Readonly<Record<string, unknown>>
}
