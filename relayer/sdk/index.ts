/**
 * JavaScript/TypeScript SDK of the asset-tokenization API. Works in Node 20+ and browsers; served
 * bundled at `/sdk/rwa-sdk.mjs` (ES module) and `/sdk/rwa-sdk.js` (global `RwaSdk`).
 * `RwaClient` holds an organization's API key; `RwaOperatorClient` the admin token (operator
 * staff's routes).
 *
 * @example
 * import { RwaClient } from "./relayer/sdk/index.js";
 * const client = new RwaClient({ apiKey: process.env.RWA_API_KEY!, baseUrl: "http://127.0.0.1:3000" });
 * const { tokenId } = await client.issueAsset({ assetType: "Bond", name: "Bond #1", description: "5y" });
 */
import { RwaClient } from "./client.js";

export { RwaClient };
export {
  RwaOperatorClient,
  type RwaOperatorClientOptions,
  type RwaOperatorClientTokenOptions,
} from "./operator-client.js";
/** Alias of `RwaClient`. */
export const RwaSdk = RwaClient;
export type {
  CancelAccepted,
  SpeedUpAccepted,
  RwaClientKeyOptions,
  RwaClientOptions,
  WaitOptions,
} from "./client.js";
export type { TransportOptions } from "./transport.js";
export type {
  RequestOptions,
  WriteInput,
  WriteMethod,
  WriteOptions,
  WriteOutput,
  WritePath,
  WriteResult,
} from "./options.js";
export { ApiError, NetworkError, RwaSdkError, type ApiErrorInit } from "./errors.js";
export { parseRetryAfter, retryDelayMs, type BackoffPolicy } from "./retry.js";
export type * from "./types.js";
export {
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookSecrets,
} from "./verify-webhook.js";
export default RwaClient;
