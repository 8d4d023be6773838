import { ApiError, NetworkError } from "./errors.js";
import type { RequestOptions, WriteOptions, WriteResult } from "./options.js";
import { randomId, sleep } from "./retry.js";
import { servedBaseUrl } from "./served-base-url.js";
import {
  HttpTransport,
  type CallResult,
  type CallSpec,
  type TransportOptions,
} from "./transport.js";
import { WRITE_PATHS, type WriteMethods } from "./write-methods.js";
import type {
  AssetHistory,
  AssetRecord,
  AssetTypesResult,
  AuditRecord,
  BatchIssueResult,
  CoinPriceResult,
  CreatedKey,
  CreatedWebhook,
  CreateKeyInput,
  CreateWebhookInput,
  DeletedWebhook,
  DeliveryLog,
  DeliveryStats,
  GetAssetsParams,
  GetListingsParams,
  IssueAssetInput,
  IssuanceStats,
  KeyList,
  ListAuditLogParams,
  ListingRecord,
  ListTransactionsParams,
  NftMetadata,
  Page,
  RedeliveryQueued,
  ReplayQueued,
  ReplayWebhookInput,
  RevokedKey,
  RotatedWebhookSecret,
  RotateWebhookSecretInput,
  StatusResult,
  TestEventQueued,
  TransactionStatus,
  TransactionSummary,
  UpdateWebhookInput,
  SetWalletAlertsInput,
  OrgPolicy,
  PendingApprovals,
  WalletAlerts,
  WalletBalance,
  WalletHistory,
  WebhookList,
  WebhookSummary,
  WriteAccepted,
} from "./types.js";

/** Options of `new RwaClient(...)`. */
export interface RwaClientOptions extends TransportOptions {
  /** `rwa_live_<64 hex>`. Keep it on a server: never ship a live key to a browser. */
  apiKey: string;
}

/** Options besides the API key, for `new RwaClient(apiKey, options)`. */
export type RwaClientKeyOptions = Partial<Omit<RwaClientOptions, "apiKey">>;

/** Options of `waitForTransaction`. */
export interface WaitOptions extends RequestOptions {
  /** Poll interval in ms. Default 1 000. */
  intervalMs?: number;
  /** Give up after this many ms. Default 300 000. */
  waitTimeoutMs?: number;
}

let browserWarningShown = false;

function isBrowser(): boolean {
  return typeof (globalThis as { window?: unknown }).window !== "undefined";
}

function idText(id: string | number | bigint): string {
  return encodeURIComponent(String(id));
}

/** `speedUpTransaction`'s answer: the write, still sent, and its new fee cap. */
export interface SpeedUpAccepted {
  transactionId: string;
  status: "sent";
  maxFeePerGasGwei: string;
  maxFeePerGas: string;
}

/** `cancelTransaction`'s answer for a write already sent: the chain decides. */
export interface CancelAccepted {
  transactionId: string;
  status: "cancelling";
  /**
   * A batch already partly sent: what became of each item, in item order (`cancelled`: not
   * sent, ended at once; `cancelling`: raced on its nonce; `too-late`: mined or final).
   */
  items?: Array<{
    index: number;
    status: TransactionStatus["status"];
    cancel: "cancelled" | "cancelling" | "too-late";
  }>;
}

const FINAL_STATES = new Set(["confirmed", "failed", "replaced", "cancelled", "expired"]);

/**
 * Client of the asset-tokenization API. Every method maps to one endpoint (see `/docs`); errors
 * are thrown as `ApiError` (status + the service's `error` string) or `NetworkError`.
 *
 * Retries: 429 and 503 answers are retried with exponential backoff and jitter, waiting at least
 * `Retry-After`; network errors and timeouts are retried for idempotent calls only (reads,
 * deletes, and writes, which always carry an `Idempotency-Key` reused across the retries).
 *
 * Construct with the options object (the long form), or with the API key first as the spec
 * shows (`new RwaSdk("rwa_live_...")`) and options second. In a bundle served by the relayer at
 * `/sdk/` the base URL defaults to the URL it was served from; elsewhere it is required.
 *
 * @example
 * const client = new RwaClient({ apiKey: process.env.RWA_API_KEY!, baseUrl: "https://api.example.com" });
 * const same = new RwaClient(process.env.RWA_API_KEY!, { baseUrl: "https://api.example.com" });
 * const { tokenId } = await client.issueAsset({ assetType: "Bond", name: "Bond #1", description: "5y" });
 */
// The write methods come from the registry (write-methods.ts); the class declares those it writes
// by hand (batchIssue, which also takes a bare array).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface RwaClient extends Omit<WriteMethods, "batchIssue"> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RwaClient {
  readonly baseUrl: string;
  private readonly transport: HttpTransport;

  constructor(options: RwaClientOptions);
  constructor(apiKey: string, options?: RwaClientKeyOptions);
  constructor(first: RwaClientOptions | string, rest: RwaClientKeyOptions = {}) {
    const options: Partial<RwaClientOptions> =
      typeof first === "string"
        ? { ...rest, apiKey: first, baseUrl: rest.baseUrl ?? servedBaseUrl() }
        : { ...first, baseUrl: first.baseUrl ?? servedBaseUrl() };
    if (typeof options.apiKey !== "string" || options.apiKey === "") {
      throw new TypeError("RwaClient: apiKey is required");
    }
    if (typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError(
        'RwaClient: baseUrl is required outside the bundle served by the relayer (new RwaClient(apiKey, { baseUrl: "https://..." }))',
      );
    }
    this.transport = new HttpTransport(options as TransportOptions, {
      "X-API-Key": options.apiKey,
    });
    this.baseUrl = this.transport.baseUrl;
    if (isBrowser() && options.apiKey.startsWith("rwa_live_") && !browserWarningShown) {
      browserWarningShown = true;
      console.warn(
        "RwaClient: a live API key (rwa_live_...) is being used in a browser. API keys are bound " +
          "to a funded custodial wallet and belong on servers only (see docs/sdk.md): anyone who " +
          "opens this page can read the key. Call the API from your backend instead.",
      );
    }
  }

  // ---- writes (POST /api/v1/write/...): one method per write kind, see `write-methods.ts` ----

  static {
    for (const [name, path] of Object.entries(WRITE_PATHS)) {
      if (Object.prototype.hasOwnProperty.call(RwaClient.prototype, name)) continue;
      Object.defineProperty(RwaClient.prototype, name, {
        configurable: true,
        writable: true,
        value: function (this: RwaClient, input: unknown, options?: WriteOptions) {
          return this.write(path, input, options);
        },
      });
    }
  }

  /**
   * `POST /api/v1/write/batch-issue` (scope `write:issue`): 1 to 50 assets, partial failure
   * possible. Also takes the array of assets itself.
   */
  batchIssue<O extends WriteOptions = WriteOptions>(
    assets: IssueAssetInput[] | { assets: IssueAssetInput[] },
    options?: O,
  ): Promise<WriteResult<BatchIssueResult, O>> {
    const body = Array.isArray(assets) ? { assets } : assets;
    return this.write(WRITE_PATHS.batchIssue, body, options);
  }

  /** `GET /api/v1/transactions/{id}`: state of a write of this organization. */
  getTransaction(transactionId: string, options?: RequestOptions): Promise<TransactionStatus> {
    return this.get(`/api/v1/transactions/${idText(transactionId)}`, undefined, options);
  }

  /**
   * `POST /api/v1/transactions/{id}/cancel` (a scope of the write): a write not sent yet ends
   * `cancelled` at once and the answer is its status; a write already sent is raced by a
   * self-transfer on its nonce and the answer is `{ transactionId, status: "cancelling" }` (poll
   * `getTransaction`: `cancelled`, or its normal end if the original was mined). A write mined
   * or final, or one that cannot be outbid, throws `ApiError` 409 (its `body.status` is the
   * state). Safe to retry: cancelling again answers the same.
   */
  async cancelTransaction(
    transactionId: string,
    options?: RequestOptions,
  ): Promise<TransactionStatus | CancelAccepted> {
    const path = `/api/v1/transactions/${idText(transactionId)}/cancel`;
    const spec = { method: "POST", path, idempotent: true, options } as const;
    return (await this.call<TransactionStatus | CancelAccepted>(spec)).body;
  }

  /**
   * `POST /api/v1/transactions/{id}/speed-up` (a scope of the write): raises a sent write's fee
   * cap to `maxFeePerGasGwei` (default: the current quote's cap) and re-sends it at once. A
   * write not sent, mined or final throws `ApiError` 409; a fee above the operator's ceiling, or
   * funds the wallet lacks, 400.
   */
  async speedUpTransaction(
    transactionId: string,
    input: { maxFeePerGasGwei?: string } = {},
    options?: RequestOptions,
  ): Promise<SpeedUpAccepted> {
    const path = `/api/v1/transactions/${idText(transactionId)}/speed-up`;
    const spec = { method: "POST", path, body: input, idempotent: false, options } as const;
    return (await this.call<SpeedUpAccepted>(spec)).body;
  }

  /** `GET /api/v1/transactions`: this organization's writes, newest first, with their state. */
  listTransactions(
    params: ListTransactionsParams = {},
    options?: RequestOptions,
  ): Promise<Page<TransactionSummary>> {
    return this.get("/api/v1/transactions", params, options);
  }

  /**
   * Polls `getTransaction` until the write is final and returns its result (the same body the
   * synchronous call returns). A failed write throws the `ApiError` the synchronous call throws:
   * `errorStatus` and `error` (500 `Transaction failed: <reason>`, 400 `Listing not active` for a
   * lost race).
   */
  async waitForTransaction<T = Record<string, unknown>>(
    transactionId: string,
    options: WaitOptions = {},
  ): Promise<T> {
    const deadline = Date.now() + (options.waitTimeoutMs ?? 300_000);
    const path = `/api/v1/transactions/${idText(transactionId)}`;
    for (;;) {
      const status = await this.getTransaction(transactionId, options);
      if (status.error !== null && FINAL_STATES.has(status.status)) {
        throw new ApiError({
          status: status.errorStatus ?? 500,
          error: status.error,
          method: "GET",
          path,
          body: status,
        });
      }
      if (status.result !== null) return status.result as T;
      if (Date.now() >= deadline) {
        throw new NetworkError("GET", path, new Error(`still ${status.status}`), true);
      }
      await sleep(options.intervalMs ?? 1_000, options.signal);
    }
  }

  // ---- reads (GET /api/v1/...) ----

  /** `GET /api/v1/status`: chain, indexer, database and queue health. */
  getStatus(options?: RequestOptions): Promise<StatusResult> {
    return this.get("/api/v1/status", undefined, options);
  }

  /** `GET /api/v1/coin-price`. */
  getCoinPrice(options?: RequestOptions): Promise<CoinPriceResult> {
    return this.get("/api/v1/coin-price", undefined, options);
  }

  /** `GET /api/v1/assets`: newest first; pass `nextCursor` back as `cursor`. */
  getAssets(params: GetAssetsParams = {}, options?: RequestOptions): Promise<Page<AssetRecord>> {
    return this.get("/api/v1/assets", params, options);
  }

  /** `GET /api/v1/assets/{id}/history`: the token's on-chain events, oldest first. */
  getAssetHistory(
    tokenId: string | number | bigint,
    options?: RequestOptions,
  ): Promise<AssetHistory> {
    return this.get(`/api/v1/assets/${idText(tokenId)}/history`, undefined, options);
  }

  /** `GET /api/v1/assets/{id}`. */
  getAsset(tokenId: string | number | bigint, options?: RequestOptions): Promise<AssetRecord> {
    return this.get(`/api/v1/assets/${idText(tokenId)}`, undefined, options);
  }

  /** `GET /api/v1/nft/{id}`: the ERC-721 metadata document. */
  getNft(tokenId: string | number | bigint, options?: RequestOptions): Promise<NftMetadata> {
    return this.get(`/api/v1/nft/${idText(tokenId)}`, undefined, options);
  }

  /** `GET /api/v1/marketplace`: listings, newest first. */
  getListings(
    params: GetListingsParams = {},
    options?: RequestOptions,
  ): Promise<Page<ListingRecord>> {
    return this.get("/api/v1/marketplace", params, options);
  }

  /** `GET /api/v1/marketplace/{id}`. */
  getListing(
    listingId: string | number | bigint,
    options?: RequestOptions,
  ): Promise<ListingRecord> {
    return this.get(`/api/v1/marketplace/${idText(listingId)}`, undefined, options);
  }

  /** `GET /api/v1/asset-types`: registered asset types. */
  getAssetTypes(options?: RequestOptions): Promise<AssetTypesResult> {
    return this.get("/api/v1/asset-types", undefined, options);
  }

  /** `GET /`: links to the docs, console, OpenAPI document, Postman collection, SDK and status. */
  getServiceIndex(
    options?: RequestOptions,
  ): Promise<{ service: string; links: Record<string, string> }> {
    return this.get("/", undefined, options);
  }

  /** `GET /healthz`: liveness. */
  getHealth(options?: RequestOptions): Promise<{ status: "ok" }> {
    return this.get("/healthz", undefined, options);
  }

  // ---- management (/api/enterprise) ----

  /** `GET /api/enterprise/wallet` (scope `read`): custodial wallet and balance. */
  getWallet(options?: RequestOptions): Promise<WalletBalance> {
    return this.get("/api/enterprise/wallet", undefined, options);
  }

  /**
   * `GET /api/enterprise/wallet/history` (scope `read`): the balances the indexer read, over
   * `from`-`to` (ISO 8601) or the last `days` days; `cursor` pages back.
   */
  getWalletHistory(
    params: { days?: number; from?: string; to?: string; limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<WalletHistory> {
    return this.get("/api/enterprise/wallet/history", params, options);
  }

  /** `GET /api/enterprise/wallet/alerts` (scope `read`): low-balance threshold and state. */
  getWalletAlerts(options?: RequestOptions): Promise<WalletAlerts> {
    return this.get("/api/enterprise/wallet/alerts", undefined, options);
  }

  /**
   * `PUT /api/enterprise/wallet/alerts` (scope `webhooks`): sets the low-balance threshold
   * (`{ lowBalance: "1.5" }`); `wallet.low_balance` / `wallet.funded` follow its crossings.
   */
  async setWalletAlerts(
    input: SetWalletAlertsInput,
    options?: RequestOptions,
  ): Promise<WalletAlerts> {
    const spec = { method: "PUT", path: "/api/enterprise/wallet/alerts", body: input } as const;
    return (await this.call<WalletAlerts>({ ...spec, idempotent: true, options })).body;
  }

  /**
   * `GET /api/enterprise/policy` (scope `read`): the organization's policy (destinations,
   * daily transfer limit, approval rules). Only a signed-in owner changes it, in the console: a
   * key cannot loosen what limits it.
   */
  getPolicy(options?: RequestOptions): Promise<OrgPolicy> {
    return this.get("/api/enterprise/policy", undefined, options);
  }

  /**
   * `GET /api/enterprise/approvals` (scope `read`): writes the policy holds, waiting for people
   * to approve them (they approve in the console; a key cannot).
   */
  listApprovals(options?: RequestOptions): Promise<PendingApprovals> {
    return this.get("/api/enterprise/approvals", undefined, options);
  }

  /** `GET /api/enterprise/assets` (scope `read`): assets this organization owns or has listed. */
  getOrganizationAssets(
    params: { limit?: number; cursor?: string; assetType?: string } = {},
    options?: RequestOptions,
  ): Promise<Page<AssetRecord>> {
    return this.get("/api/enterprise/assets", params, options);
  }

  /** `GET /api/enterprise/stats/issuances` (scope `read`): assets issued per UTC day. */
  getIssuanceStats(
    params: { days?: number } = {},
    options?: RequestOptions,
  ): Promise<IssuanceStats> {
    return this.get("/api/enterprise/stats/issuances", params, options);
  }

  /** `GET /api/enterprise/stats/deliveries` (scope `read` or `webhooks`): deliveries per hour. */
  getDeliveryStats(
    params: { hours?: number } = {},
    options?: RequestOptions,
  ): Promise<DeliveryStats> {
    return this.get("/api/enterprise/stats/deliveries", params, options);
  }

  /** `GET /api/enterprise/keys` (scope `read`). */
  listKeys(options?: RequestOptions): Promise<KeyList> {
    return this.get("/api/enterprise/keys", undefined, options);
  }

  /** `POST /api/enterprise/keys` (scope `read`): a new key with a subset of this key's scopes. */
  async createKey(input: CreateKeyInput, options?: RequestOptions): Promise<CreatedKey> {
    const body = { method: "POST", path: "/api/enterprise/keys", body: input } as const;
    return (await this.call<CreatedKey>({ ...body, idempotent: false, options })).body;
  }

  /** `DELETE /api/enterprise/keys` (scope `read`): revoke a key. */
  async revokeKey(keyId: string, options?: RequestOptions): Promise<RevokedKey> {
    const spec = { method: "DELETE", path: "/api/enterprise/keys", body: { keyId } } as const;
    return (await this.call<RevokedKey>({ ...spec, idempotent: true, options })).body;
  }

  /** `GET /api/enterprise/webhooks` (scope `webhooks` or `read`). */
  listWebhooks(options?: RequestOptions): Promise<WebhookList> {
    return this.get("/api/enterprise/webhooks", undefined, options);
  }

  /** `POST /api/enterprise/webhooks` (scope `webhooks`): the secret is in this answer only. */
  async createWebhook(
    input: CreateWebhookInput,
    options?: RequestOptions,
  ): Promise<CreatedWebhook> {
    const spec = { method: "POST", path: "/api/enterprise/webhooks", body: input } as const;
    return (await this.call<CreatedWebhook>({ ...spec, idempotent: false, options })).body;
  }

  /** `DELETE /api/enterprise/webhooks` (scope `webhooks`). */
  async deleteWebhook(webhookId: string, options?: RequestOptions): Promise<DeletedWebhook> {
    const spec = {
      method: "DELETE",
      path: "/api/enterprise/webhooks",
      body: { webhookId },
    } as const;
    return (await this.call<DeletedWebhook>({ ...spec, idempotent: true, options })).body;
  }

  /** `GET /api/enterprise/webhooks/{webhookId}/deliveries` (scope `webhooks` or `read`). */
  getWebhookDeliveries(
    webhookId: string,
    params: { limit?: number } = {},
    options?: RequestOptions,
  ): Promise<DeliveryLog> {
    return this.get(`/api/enterprise/webhooks/${idText(webhookId)}/deliveries`, params, options);
  }

  /** `POST /api/enterprise/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver` (scope `webhooks`). */
  async redeliverWebhook(
    webhookId: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<RedeliveryQueued> {
    const path = `/api/enterprise/webhooks/${idText(webhookId)}/deliveries/${idText(deliveryId)}/redeliver`;
    return (await this.call<RedeliveryQueued>({ method: "POST", path, idempotent: false, options }))
      .body;
  }

  /** `POST /api/enterprise/webhooks/{webhookId}/test` (scope `webhooks`): a `webhook.test` ping. */
  async testWebhook(webhookId: string, options?: RequestOptions): Promise<TestEventQueued> {
    const path = `/api/enterprise/webhooks/${idText(webhookId)}/test`;
    return (await this.call<TestEventQueued>({ method: "POST", path, idempotent: false, options }))
      .body;
  }

  /** `PATCH /api/enterprise/webhooks/{webhookId}` (scope `webhooks`): change the event filter. */
  async updateWebhook(
    webhookId: string,
    input: UpdateWebhookInput,
    options?: RequestOptions,
  ): Promise<WebhookSummary> {
    const path = `/api/enterprise/webhooks/${idText(webhookId)}`;
    const spec = { method: "PATCH", path, body: input } as const;
    return (await this.call<WebhookSummary>({ ...spec, idempotent: true, options })).body;
  }

  /**
   * `POST /api/enterprise/webhooks/{webhookId}/rotate-secret` (scope `webhooks`): the new secret
   * is in this answer only; until `previousSecretExpiresAt` deliveries carry a signature with each
   * secret (pass both to `verifyWebhook` meanwhile).
   */
  async rotateWebhookSecret(
    webhookId: string,
    input: RotateWebhookSecretInput = {},
    options?: RequestOptions,
  ): Promise<RotatedWebhookSecret> {
    const path = `/api/enterprise/webhooks/${idText(webhookId)}/rotate-secret`;
    const spec = { method: "POST", path, body: input } as const;
    return (await this.call<RotatedWebhookSecret>({ ...spec, idempotent: false, options })).body;
  }

  /**
   * `POST /api/enterprise/webhooks/{webhookId}/replay` (scope `webhooks`): sends every event of
   * the range again (at most 31 days; same `webhook-id` as the first time).
   */
  async replayWebhook(
    webhookId: string,
    input: ReplayWebhookInput,
    options?: RequestOptions,
  ): Promise<ReplayQueued> {
    const path = `/api/enterprise/webhooks/${idText(webhookId)}/replay`;
    const spec = { method: "POST", path, body: input } as const;
    return (await this.call<ReplayQueued>({ ...spec, idempotent: false, options })).body;
  }

  /**
   * `GET /api/enterprise/audit-log` (scope `read`): who did what to this organization (keys,
   * webhooks, registration, operator acts), newest first, hash-chained; pass `nextCursor` back
   * as `cursor`. Filters: `action`, `from` and `to` (ISO 8601).
   */
  listAuditLog(
    params: ListAuditLogParams = {},
    options?: RequestOptions,
  ): Promise<Page<AuditRecord>> {
    return this.get("/api/enterprise/audit-log", params, options);
  }

  // ---- transport ----

  private async get<T>(
    path: string,
    query: Record<string, string | number | undefined> | undefined,
    options: RequestOptions | undefined,
  ): Promise<T> {
    return (await this.call<T>({ method: "GET", path, query, idempotent: true, options })).body;
  }

  /**
   * `POST` of a write: sends an `Idempotency-Key` (reused by every retry of this call) and,
   * when a synchronous write answers 202, waits for the transaction. Used by the write methods.
   */
  private async write<T>(path: string, body: unknown, options: WriteOptions = {}): Promise<T> {
    // One key per call, shared by all of its retries: the relayer answers a repeat with the
    // first attempt's transaction instead of issuing again.
    const idempotencyKey = options.idempotencyKey ?? randomId();
    const headers: Record<string, string> = { "Idempotency-Key": idempotencyKey };
    if (options.prefer !== undefined) headers.Prefer = options.prefer;
    const result = await this.call<T | WriteAccepted>({
      method: "POST",
      path,
      body,
      headers,
      idempotent: true,
      options,
    });
    if (result.status === 202 && options.prefer !== "respond-async") {
      const accepted = result.body as WriteAccepted;
      return this.waitForTransaction<T>(accepted.transactionId, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.waitTimeoutMs === undefined ? {} : { waitTimeoutMs: options.waitTimeoutMs }),
      });
    }
    return result.body as T;
  }

  private call<T>(spec: CallSpec): Promise<CallResult<T>> {
    return this.transport.call<T>(spec);
  }
}
