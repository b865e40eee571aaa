/**
 * MCP-compatible content blocks: text, image, audio, embedded resource and resource link.
 *
 * @since 0.1.0
 */

/**
 * Optional hints attached to a content block (MCP `annotations`).
 *
 * @since 0.1.0
 */
export interface ContentAnnotations {
  readonly audience?: readonly ("user" | "assistant")[]
  readonly priority?: number
  readonly lastModified?: string
}

/** @since 0.1.0 */
export interface TextContent {
  readonly type: "text"
  readonly text: string
  readonly annotations?: ContentAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** @since 0.1.0 */
export interface ImageContent {
  readonly type: "image"
  /** Base64-encoded bytes. */
  readonly data: string
  readonly mimeType: string
  readonly annotations?: ContentAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** @since 0.1.0 */
export interface AudioContent {
  readonly type: "audio"
  /** Base64-encoded bytes. */
  readonly data: string
  readonly mimeType: string
  readonly annotations?: ContentAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** @since 0.1.0 */
export interface ResourceContents {
  readonly uri: string
  readonly mimeType?: string
  readonly text?: string
  /** Base64-encoded bytes. */
  readonly blob?: string
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** @since 0.1.0 */
export interface EmbeddedResource {
  readonly type: "resource"
  readonly resource: ResourceContents
  readonly annotations?: ContentAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** @since 0.1.0 */
export interface ResourceLink {
  readonly type: "resource_link"
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
  readonly annotations?: ContentAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * Any content block a tool result may carry.
 *
 * @since 0.1.0
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

/**
 * A text block.
 *
 * @since 0.1.0
 */
export const text = (value: string): TextContent => ({ type: "text", text: value })

/**
 * An image block from base64 data.
 *
 * @since 0.1.0
 */
export const image = (data: string, mimeType: string): ImageContent => ({ type: "image", data, mimeType })

/**
 * An audio block from base64 data.
 *
 * @since 0.1.0
 */
export const audio = (data: string, mimeType: string): AudioContent => ({ type: "audio", data, mimeType })

/**
 * An embedded resource block.
 *
 * @since 0.1.0
 */
export const resource = (contents: ResourceContents): EmbeddedResource => ({
  type: "resource",
  resource: contents,
})

/**
 * A link to a resource the client may fetch.
 *
 * @since 0.1.0
 */
export const resourceLink = (
  uri: string,
  name: string,
  extra: Omit<ResourceLink, "type" | "uri" | "name"> = {},
): ResourceLink => ({ type: "resource_link", uri, name, ...extra })

const CONTENT_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"])

/**
 * Tells whether a value is a content block.
 *
 * @since 0.1.0
 */
export const isContentBlock = (value: unknown): value is ContentBlock =>
  typeof value === "object" &&
  value !== null &&
  CONTENT_TYPES.has((value as { type?: unknown }).type as string)
