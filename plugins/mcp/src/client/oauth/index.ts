export { type AuthorizationCodeLoginOptions, authorizationCodeLogin } from "./authorizationCodeLogin.js"
export { UpstreamConsentRequired } from "./consentRequired.js"
export {
  type DiscoverOAuthOptions,
  discoverOAuth,
  type OAuthDiscovery,
  resourceMetadataUrl,
} from "./discovery.js"
export { loginCommand, OAuthLoginRequired, OAuthUpstreamError } from "./errors.js"
export {
  type PerCallerMcpBackend,
  type PerCallerMcpBackendConfig,
  perCallerMcpBackend,
} from "./perCallerBackend.js"
export { EncryptedTokenStore, parseTokenKey, type StoredTokens } from "./tokenStore.js"
export { type OAuthUpstreamAuth, type OAuthUpstreamConfig, oauthUpstreamAuth } from "./upstreamAuth.js"
