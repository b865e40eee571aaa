/**
 * @toolplane/plugin-ai-sdk: any Toolplane tool service as Vercel AI SDK tools (executed through the
 * service with the SDK's abort signal, approval through the SDK's approval flow), and AI SDK tools as a
 * Toolplane backend.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export {
  AI_SDK_APPROVAL_KEY,
  type AISDKApproval,
  type AISDKApprovalDecision,
  type AISDKApprovalOptions,
  type AISDKApprovalRequest,
  type AISDKApprovalVia,
  aiSdkApproval,
} from "./approval.js"
export { type AISDKBackend, type FromAISDKToolsOptions, fromAISDKTools } from "./fromAISDKTools.js"
export {
  type AISDKApprovalStatus,
  type AISDKToolSet,
  type AISDKToolsOptions,
  toAISDKTools,
} from "./toAISDKTools.js"
