export { type AuthorizationCodeLoginOptions, authorizationCodeLogin } from "./authorizationCodeLogin.js"
export {
  type DiscoverOAuthOptions,
  discoverOAuth,
  type OAuthDiscovery,
  resourceMetadataUrl,
} from "./discovery.js"
export { OAuthLoginRequired, OAuthUpstreamError } from "./errors.js"
export { EncryptedTokenStore, parseTokenKey, type StoredTokens } from "./tokenStore.js"
export { type OAuthUpstreamAuth, type OAuthUpstreamConfig, oauthUpstreamAuth } from "./upstreamAuth.js"
