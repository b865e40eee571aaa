export { type AuthorizationCodeLoginOptions, authorizationCodeLogin } from "./authorizationCodeLogin.js"
export { UpstreamConsentRequired } from "./consentRequired.js"
export {
  type DiscoverOAuthOptions,
  discoverAuthorizationServer,
  discoverOAuth,
  type OAuthDiscovery,
  resourceMetadataUrl,
} from "./discovery.js"
export {
  loginCommand,
  logoutCommand,
  OAuthLoginRequired,
  OAuthRevocationFailed,
  type OAuthRevocationFailure,
  OAuthUpstreamError,
  type RevocableToken,
} from "./errors.js"
export {
  type OAuthLogoutOptions,
  type OAuthLogoutOutcome,
  type OAuthLogoutResult,
  oauthLogout,
} from "./logout.js"
export {
  type PerCallerMcpBackend,
  type PerCallerMcpBackendConfig,
  perCallerMcpBackend,
} from "./perCallerBackend.js"
export { EncryptedTokenStore, parseTokenKey, type StoredTokens } from "./tokenStore.js"
export { type OAuthUpstreamAuth, type OAuthUpstreamConfig, oauthUpstreamAuth } from "./upstreamAuth.js"
