/**
 * @toolplane/compose: toolsets, exposure, skills and the gateway middleware.
 *
 * Every export is listed here; helpers the modules share (reference parsing, byte counting, listing
 * caches) are not part of the public API.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type ExportReport, Exposure, type ExposureError, expose, type ToolSource } from "./exposure.js"
export {
  GATEWAY_ORDER,
  type GatewayLayer,
  type GatewayLayerName,
  type GatewayOptions,
  gatewayLayers,
  gatewayStack,
} from "./gatewayStack.js"
export type { ListingOptions, ToolListChanges } from "./internal/listing.js"
export { type AliasConfig, type AliasTable, aliasing, aliasTable, checkAliases } from "./middleware/alias.js"
export {
  type ArgumentOverrides,
  argumentOverrides,
  checkArgumentOverrides,
  type ParameterOverride,
} from "./middleware/argumentOverrides.js"
export { type CapabilitySource, capabilityFilter } from "./middleware/capabilityFilter.js"
export { CODE_MODE_TOOLS, type CodeModeOptions, codeMode } from "./middleware/codeMode.js"
export {
  type CompositeOptions,
  type CompositeToolDefinition,
  checkCompositeTargets,
  compositeInputSchema,
  compositeTools,
  resolveComposites,
} from "./middleware/composite.js"
export {
  type SearchModeFilterOptions,
  type SearchModeView,
  searchModeFilter,
  searchModeView,
} from "./middleware/searchMode.js"
export { requestValidation, type ValidationOptions } from "./middleware/validation.js"
export { virtualTools } from "./middleware/virtualTools.js"
export {
  type CatalogItemRef,
  type CatalogSource,
  type GatewayResourceCatalog,
  matchesUriTemplate,
  type ResourceCatalogOptions,
  resourceCatalog,
} from "./resourceCatalog.js"
export { SkillPlanError, type SkillPlanErrorReason, SkillStepFailed } from "./skill/errors.js"
export { type ExecuteOptions, executePlan, type SkillRun, type StepResult } from "./skill/execute.js"
export { allowedTools, defineGuard, type Guard, maxSteps } from "./skill/guards.js"
export {
  type KnownTools,
  makePlanner,
  type Plan,
  type PlannedStep,
  type Planner,
  type PlannerOptions,
} from "./skill/planner.js"
export { type Reference, ref, SKILL_INPUT } from "./skill/references.js"
export { defineSkill, type Skill, type SkillStep } from "./skill/skill.js"
export { type SkillToolOptions, skillTool } from "./skill/skillTool.js"
export { type TagFilterOptions, type ToolIndexLike, ToolsetBuilder, toolset } from "./toolset/builder.js"
export {
  allowIds,
  and,
  byAnnotations,
  byCategory,
  byNamespace,
  denyIds,
  filterTools,
  hideDestructive,
  not,
  or,
  readOnlyOnly,
  type ToolFilter,
  tagsAll,
  tagsAny,
  tagsNone,
} from "./toolset/filters.js"
export {
  allowAll,
  allowNamespaces,
  allowScopes,
  definePolicy,
  denyAll,
  denyTags,
  evaluatePolicies,
  type Policy,
  type PolicyDecision,
  type ScopeOptions,
} from "./toolset/policies.js"
export {
  type LabeledFilter,
  makeSelection,
  type SelectionVerdict,
  type ToolSelection,
} from "./toolset/selection.js"
export { Toolset } from "./toolset/toolset.js"
