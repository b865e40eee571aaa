/**
 * Resources, resource templates, prompts and completions: the optional contract a backend implements
 * to offer them next to its tools (MCP servers do; an in-process backend can, with
 * {@link withResources}), and the paged, served form a gateway exposes ({@link ResourceCatalog}).
 *
 * Shapes follow MCP 2025-11-25 (`Resource`, `ResourceTemplate`, `Prompt`, `completion/complete`) as
 * plain JSON, so a provider needs no protocol library.
 *
 * @since 0.1.0
 */
import type { ResourceContents } from "./content.js"
import type { ExecutionContext } from "./executionContext.js"

/**
 * A readable resource.
 *
 * @since 0.1.0
 */
export interface Resource {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
  readonly annotations?: Readonly<Record<string, unknown>>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * A family of resources addressed by an RFC 6570 URI template (`test://items/{id}`).
 *
 * @since 0.1.0
 */
export interface ResourceTemplate {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly annotations?: Readonly<Record<string, unknown>>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * What reading a resource returns.
 *
 * @since 0.1.0
 */
export interface ReadResourceResult {
  readonly contents: readonly ResourceContents[]
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * An argument of a prompt.
 *
 * @since 0.1.0
 */
export interface PromptArgument {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly required?: boolean
}

/**
 * A prompt template a client can fetch with arguments.
 *
 * @since 0.1.0
 */
export interface Prompt {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly arguments?: readonly PromptArgument[]
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * One message of a fetched prompt; `content` is an MCP content block (text, image, audio, resource…).
 *
 * @since 0.1.0
 */
export interface PromptMessage {
  readonly role: "user" | "assistant"
  readonly content: Readonly<Record<string, unknown>>
}

/**
 * What fetching a prompt returns.
 *
 * @since 0.1.0
 */
export interface GetPromptResult {
  readonly description?: string
  readonly messages: readonly PromptMessage[]
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * What a completion is asked for: a prompt's argument or a resource template's variable.
 *
 * @since 0.1.0
 */
export type CompletionRef =
  | { readonly type: "ref/prompt"; readonly name: string }
  | { readonly type: "ref/resource"; readonly uri: string }

/**
 * A completion request.
 *
 * @since 0.1.0
 */
export interface CompleteRequest {
  readonly ref: CompletionRef
  readonly argument: { readonly name: string; readonly value: string }
  /** Values of arguments already filled in. */
  readonly context?: { readonly arguments?: Readonly<Record<string, string>> }
}

/**
 * Completion values, best first.
 *
 * @since 0.1.0
 */
export interface Completion {
  readonly values: readonly string[]
  readonly total?: number
  readonly hasMore?: boolean
}

/**
 * Which kinds a provider offers. Absent kinds are not offered; a gateway advertises only the kinds some
 * provider offers.
 *
 * @since 0.1.0
 */
export interface ResourceCapabilities {
  readonly resources?: { readonly subscribe?: boolean }
  readonly prompts?: Readonly<Record<string, never>>
  readonly completions?: Readonly<Record<string, never>>
}

/**
 * The kinds whose lists can change.
 *
 * @since 0.1.0
 */
export type CatalogKind = "resources" | "prompts"

/**
 * The provider contract of one backend (full lists; the gateway merges and paginates). Every method is
 * optional except `capabilities`; a method of a kind `capabilities()` does not report is never called.
 * Methods reject with `ToolError`s (`ResourceNotFound`, `PromptNotFound`, `BackendUnavailable`, …).
 *
 * @since 0.1.0
 */
export interface ResourceProvider {
  /** The kinds offered now (an MCP backend knows them once connected). */
  capabilities(): ResourceCapabilities
  listResources?(ctx: ExecutionContext): Promise<readonly Resource[]>
  listResourceTemplates?(ctx: ExecutionContext): Promise<readonly ResourceTemplate[]>
  readResource?(uri: string, ctx: ExecutionContext): Promise<ReadResourceResult>
  /** Starts forwarding updates of `uri` to {@link ResourceProvider.onResourceUpdated} listeners. */
  subscribeResource?(uri: string): Promise<void>
  unsubscribeResource?(uri: string): Promise<void>
  /** Subscribes to updates of subscribed resources; returns an unsubscribe function. */
  onResourceUpdated?(listener: (uri: string) => void): () => void
  listPrompts?(ctx: ExecutionContext): Promise<readonly Prompt[]>
  getPrompt?(
    name: string,
    args: Readonly<Record<string, string>>,
    ctx: ExecutionContext,
  ): Promise<GetPromptResult>
  complete?(request: CompleteRequest, ctx: ExecutionContext): Promise<Completion>
  /** Subscribes to list changes of a kind (and capability changes); returns an unsubscribe function. */
  onListChanged?(listener: (kind: CatalogKind) => void): () => void
}

const PROVIDER: unique symbol = Symbol.for("@toolplane/foundation/resourceProvider") as never

/**
 * Attaches a {@link ResourceProvider} to a backend (or any object); {@link resourceProviderOf} finds it
 * again, also through wrappers that spread the backend (`{ ...backend }`).
 *
 * @example
 * ```ts
 * const docs = withResources(myBackend(), {
 *   capabilities: () => ({ resources: {} }),
 *   listResources: async () => [{ uri: "docs://readme", name: "README", mimeType: "text/markdown" }],
 *   readResource: async (uri) => ({ contents: [{ uri, mimeType: "text/markdown", text: "# Docs" }] }),
 * })
 * ```
 * @since 0.1.0
 */
export const withResources = <B extends object>(backend: B, provider: ResourceProvider): B => {
  Object.defineProperty(backend, PROVIDER, { value: provider, enumerable: true, configurable: true })
  return backend
}

/**
 * The {@link ResourceProvider} attached to a backend with {@link withResources}, if any.
 *
 * @since 0.1.0
 */
export const resourceProviderOf = (backend: object): ResourceProvider | undefined =>
  (backend as { [PROVIDER]?: ResourceProvider })[PROVIDER]

/**
 * A page of a served listing.
 *
 * @since 0.1.0
 */
export interface CatalogPage<A> {
  readonly items: readonly A[]
  readonly nextCursor?: string
}

/**
 * A request of a served listing: a signed cursor from the previous page, and the caller's context.
 *
 * @since 0.1.0
 */
export interface CatalogListRequest {
  readonly cursor?: string
  readonly context: ExecutionContext
}

/**
 * What a server exposes next to its tools: resources, templates, prompts and completions of every
 * backend, merged (prompt names namespaced, clashing URIs made distinct), paged with signed cursors and
 * filtered per caller. `@toolplane/compose`'s `resourceCatalog` builds one from providers.
 *
 * @since 0.1.0
 */
export interface ResourceCatalog {
  /** The kinds some visible provider offers. */
  capabilities(): ResourceCapabilities
  listResources(request: CatalogListRequest): Promise<CatalogPage<Resource>>
  listResourceTemplates(request: CatalogListRequest): Promise<CatalogPage<ResourceTemplate>>
  readResource(uri: string, ctx: ExecutionContext): Promise<ReadResourceResult>
  /** Subscribes `subscriber` (e.g. a session id) to updates of `uri`. */
  subscribe(uri: string, subscriber: string, ctx: ExecutionContext): Promise<void>
  unsubscribe(uri: string, subscriber: string): Promise<void>
  /** Drops every subscription of a subscriber (a closed session). */
  unsubscribeAll(subscriber: string): Promise<void>
  /** Updates of subscribed resources, with the subscribers to tell. */
  onResourceUpdated(listener: (uri: string, subscribers: readonly string[]) => void): () => void
  listPrompts(request: CatalogListRequest): Promise<CatalogPage<Prompt>>
  getPrompt(
    name: string,
    args: Readonly<Record<string, string>>,
    ctx: ExecutionContext,
  ): Promise<GetPromptResult>
  complete(request: CompleteRequest, ctx: ExecutionContext): Promise<Completion>
  /** List changes of a kind. */
  onListChanged(listener: (kind: CatalogKind) => void): () => void
  close(): void
}
