/**
 * Validation of values against JSON Schema (2020-12 and draft-07, no remote `$ref`) or any Standard
 * Schema, with failures reported as {@link ValidationIssue}s (JSON pointer + rule).
 *
 * The JSON Schema engine is Ajv: it compiled schemas to code and beat `@cfworker/json-schema` by a wide
 * margin in `pnpm bench` (numbers in the package README).
 *
 * @since 0.1.0
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { namesInheritedMember, withProtoAsPattern } from "./internal/prototypeNames.js"
import { escapeJsonPointer } from "./jsonPointer.js"
import { isStandardSchema, type JsonSchema, type SchemaSource } from "./jsonSchema.js"
import { InvalidTool, type ValidationIssue } from "./toolError.js"

/**
 * The outcome of validating a value.
 *
 * @since 0.1.0
 */
export type ValidationResult<T = unknown> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] }

/**
 * A compiled validator. `validate` is synchronous for JSON Schema and for synchronous Standard Schemas;
 * an async Standard Schema returns a Promise.
 *
 * @since 0.1.0
 */
export interface Validator<T = unknown> {
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>
}

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: unknown) => void

/**
 * The Ajv instances, made on first use: by dialect, and by whether presence means an own property
 * (`ownProperties`, only for schemas naming an `Object.prototype` member or `__proto__`; it adds a
 * `hasOwnProperty` call to every property test, so the common schema does without it).
 */
const engines = new Map<string, Ajv | Ajv2020>()

const engine = (schema: JsonSchema, ownProperties: boolean): Ajv | Ajv2020 => {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : ""
  const draft07 = dialect.includes("draft-07") || dialect.includes("draft-06") || dialect.includes("draft-04")
  const key = `${draft07 ? "07" : "2020"}${ownProperties ? "/own" : ""}`
  let ajv = engines.get(key)
  if (!ajv) {
    const options = {
      allErrors: true,
      strict: false,
      validateSchema: true,
      addUsedSchema: false,
      ownProperties,
    }
    ajv = draft07 ? new Ajv(options) : new Ajv2020(options)
    addFormats(ajv)
    engines.set(key, ajv)
  }
  return ajv
}

/**
 * Compiles a schema. One that names an `Object.prototype` member or `__proto__` as a property (checked
 * once here, never per call) compiles on the own-property engine, with `__proto__` restated where Ajv
 * applies it (see `internal/prototypeNames.ts`); any other compiles exactly as it is.
 */
const compileWithAjv = (schema: JsonSchema): ValidateFunction => {
  if (!namesInheritedMember(schema)) return engine(schema, false).compile(schema as Record<string, unknown>)
  return engine(schema, true).compile(withProtoAsPattern(schema) as Record<string, unknown>)
}

const ajvIssue = (error: ErrorObject): ValidationIssue => {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty)
      return {
        path: `${error.instancePath}/${escapeJsonPointer(missing)}`,
        rule: "required",
        message: `missing required property "${missing}"`,
      }
    }
    case "additionalProperties": {
      const extra = String(params.additionalProperty)
      return {
        path: `${error.instancePath}/${escapeJsonPointer(extra)}`,
        rule: "additionalProperties",
        message: `unexpected property "${extra}"`,
      }
    }
    case "type":
      return { path: error.instancePath, rule: "type", message: `must be ${params.type}` }
    case "enum":
      return {
        path: error.instancePath,
        rule: "enum",
        message: `must be one of ${JSON.stringify(params.allowedValues)}`,
      }
    default:
      return { path: error.instancePath, rule: error.keyword, message: error.message ?? error.keyword }
  }
}

const compiled = new WeakMap<object, ValidateFunction>()

/**
 * Compiles a JSON Schema (cached per schema object). A schema that does not compile (bad keyword values,
 * unresolvable or remote `$ref`) fails with {@link InvalidTool}.
 *
 * @since 0.1.0
 */
export const compileJsonSchema = <T = unknown>(schema: JsonSchema, toolId = ""): Validator<T> => {
  let fn = compiled.get(schema)
  if (!fn) {
    try {
      fn = compileWithAjv(schema)
    } catch (cause) {
      throw new InvalidTool({
        toolId,
        path: "inputSchema",
        reason: `schema does not compile: ${(cause as Error).message}`,
      })
    }
    compiled.set(schema, fn)
  }
  const validate = fn
  return {
    validate(value) {
      if (validate(value)) return { ok: true, value: value as T }
      return { ok: false, issues: (validate.errors ?? []).map(ajvIssue) }
    },
  }
}

const pathToPointer = (path: StandardSchemaV1.Issue["path"]): string => {
  if (!path || path.length === 0) return ""
  let out = ""
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    out += `/${escapeJsonPointer(String(key))}`
  }
  return out
}

const standardIssues = (issues: ReadonlyArray<StandardSchemaV1.Issue>): ValidationIssue[] =>
  issues.map((issue) => ({
    path: pathToPointer(issue.path),
    rule: String((issue as { code?: unknown }).code ?? "invalid"),
    message: issue.message,
  }))

const standardResult = <T>(result: StandardSchemaV1.Result<unknown>): ValidationResult<T> =>
  result.issues
    ? { ok: false, issues: standardIssues(result.issues) }
    : { ok: true, value: result.value as T }

/**
 * A validator for any schema source: Standard Schemas validate with their own library (keeping
 * defaults and transforms), raw JSON Schema with the compiled engine.
 *
 * @since 0.1.0
 */
export const validatorFor = <T = unknown>(source: SchemaSource, toolId = ""): Validator<T> => {
  if (isStandardSchema(source)) {
    const std = source["~standard"]
    return {
      validate(value) {
        const result = std.validate(value)
        return result instanceof Promise
          ? result.then((r) => standardResult<T>(r))
          : standardResult<T>(result as StandardSchemaV1.Result<unknown>)
      },
    }
  }
  return compileJsonSchema<T>(source as JsonSchema, toolId)
}

/**
 * Validates that an object is a usable JSON Schema (2020-12 unless `$schema` says draft-07) by compiling
 * it. Returns the issues, empty when it is usable.
 *
 * @since 0.1.0
 */
export const checkJsonSchema = (schema: unknown): string[] => {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return ["schema must be an object"]
  try {
    compileJsonSchema(schema as JsonSchema)
    return []
  } catch (error) {
    return [error instanceof InvalidTool ? error.reason : String(error)]
  }
}
