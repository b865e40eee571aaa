/**
 * Step 8, output validation: a tool that declares an `outputSchema` must return `structuredContent`
 * matching it, or the call fails with {@link InvalidOutput}. Results marked `isError` are not checked.
 *
 * @since 0.1.0
 */
import { InvalidOutput, type ToolResult, type Validator } from "@toolplane/foundation"

/**
 * Checks a result against the tool's output validator.
 *
 * @since 0.1.0
 */
export const validateOutput = async (
  toolId: string,
  validator: Validator,
  result: ToolResult,
): Promise<void> => {
  if (result.isError) return
  if (result.structuredContent === undefined)
    throw new InvalidOutput({
      toolId,
      issues: [
        {
          path: "",
          rule: "required",
          message: "the tool declares an outputSchema but returned no structuredContent",
        },
      ],
    })
  let checked = validator.validate(result.structuredContent)
  if (checked instanceof Promise) checked = await checked
  if (!checked.ok) throw new InvalidOutput({ toolId, issues: checked.issues })
}
