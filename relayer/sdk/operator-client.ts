import type { RequestOptions } from "./options.js";
import { servedBaseUrl } from "./served-base-url.js";
import { HttpTransport, type TransportOptions } from "./transport.js";
import type {
  AuditRecord,
  Allowlist,
  AllowlistChange,
  AllowlistInput,
  AssetTypeRestrictionInput,
  AssetTypeRestrictionResult,
  ForceTransferInput,
  ForceTransferResult,
  FreezeResult,
  ListOrgsParams,
  OperatorAssetTypeInput,
  OperatorAssetTypeResult,
  OperatorAuditLogParams,
  OperatorRequest,
  OperatorRequestList,
  OrgKeyList,
  OrgList,
  OrgOverview,
  OrgPlan,
  Page,
  PauseResult,
  ReasonInput,
  RegisteredOrganization,
  RegisterOrganizationInput,
  RescueInput,
  RescueResult,
  RevokedKey,
  UpdatedOrg,
  UpdateOrgInput,
} from "./types.js";

/** Options of `new RwaOperatorClient(...)`. */
export interface RwaOperatorClientOptions extends TransportOptions {
  /** The relayer's `ADMIN_TOKEN` (`ent_admin_...`): operator staff's tools and servers only. */
  adminToken: string;
}

/** Options besides the admin token, for `new RwaOperatorClient(adminToken, options)`. */
export type RwaOperatorClientTokenOptions = Partial<Omit<RwaOperatorClientOptions, "adminToken">>;

let browserWarningShown = false;

function idText(id: string | number | bigint): string {
  return encodeURIComponent(String(id));
}

/**
 * Client of the operator staff's routes (`X-Admin-Token`): organizations (register, list, plan,
 * suspend and resume, keys), compliance controls (freeze, forced transfer, market pause,
 * restricted types, allowlist), the marketplace rescue, operator asset types and the whole audit
 * log. Kept apart from `RwaClient`, which holds an organization's API key: an integrator's code
 * never needs the admin token, and one client never carries both credentials. Method names are
 * the OpenAPI `operationId`s; `suspendOrg`, `resumeOrg` and `changeOrgPlan` are `updateOrg` with
 * one field.
 *
 * Same options, retries and errors as `RwaClient` (docs/sdk.md "Errors and retries"): an error
 * answer throws `ApiError` with the service's `error` string (403 `Admin token required`, 404
 * `Asset not found`, ...); 429 and 503 are retried, except an answer naming a transaction already
 * sent (`ApiError.txHash`: the act may be on chain, look it up before trying again). The chain
 * acts (freeze, pause, rescue, ...) answer once mined; they are not resent after a network error.
 *
 * @example
 * const ops = new RwaOperatorClient({ adminToken: process.env.ADMIN_TOKEN!, baseUrl: "https://api.example.com" });
 * await ops.suspendOrg("org_123");
 * const { txHash } = await ops.freezeAsset("42", { reason: "court order 7" });
 * const { data } = await ops.listAuditLog({ action: "asset.frozen" });
 */
export class RwaOperatorClient {
  readonly baseUrl: string;
  private readonly transport: HttpTransport;

  constructor(options: RwaOperatorClientOptions);
  constructor(adminToken: string, options?: RwaOperatorClientTokenOptions);
  constructor(first: RwaOperatorClientOptions | string, rest: RwaOperatorClientTokenOptions = {}) {
    const options: Partial<RwaOperatorClientOptions> =
      typeof first === "string"
        ? { ...rest, adminToken: first, baseUrl: rest.baseUrl ?? servedBaseUrl() }
        : { ...first, baseUrl: first.baseUrl ?? servedBaseUrl() };
    if (typeof options.adminToken !== "string" || options.adminToken === "") {
      throw new TypeError("RwaOperatorClient: adminToken is required");
    }
    if (typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError(
        'RwaOperatorClient: baseUrl is required outside the bundle served by the relayer (new RwaOperatorClient(adminToken, { baseUrl: "https://..." }))',
      );
    }
    this.transport = new HttpTransport(options as TransportOptions, {
      "X-Admin-Token": options.adminToken,
    });
    this.baseUrl = this.transport.baseUrl;
    if (
      typeof (globalThis as { window?: unknown }).window !== "undefined" &&
      !browserWarningShown
    ) {
      browserWarningShown = true;
      console.warn(
        "RwaOperatorClient: the admin token is being used in a browser. It controls every " +
          "organization (suspend, freeze, forced transfers): anyone who opens this page can read " +
          "it. Use the operator console (/console) or call from a server instead.",
      );
    }
  }

  // ---- organizations ----

  /**
   * `POST /api/enterprise/register`: a new organization with its custodial wallet and first API
   * key (`apiKey`, shown only in this answer). Not resent after a network error.
   */
  async registerOrganization(
    input: RegisterOrganizationInput,
    options?: RequestOptions,
  ): Promise<RegisteredOrganization> {
    return this.send("POST", "/api/enterprise/register", input, false, options);
  }

  /** `GET /api/enterprise/orgs`: organizations, oldest first; `q` is a part of the name. */
  listOrgs(params: ListOrgsParams = {}, options?: RequestOptions): Promise<OrgList> {
    return this.transport.get("/api/enterprise/orgs", params, options);
  }

  /** `GET /api/enterprise/orgs/{orgId}`; an unknown id is 404 `Organization not found`. */
  getOrg(orgId: string, options?: RequestOptions): Promise<OrgOverview> {
    return this.transport.get(`/api/enterprise/orgs/${idText(orgId)}`, undefined, options);
  }

  /**
   * `PATCH /api/enterprise/orgs/{orgId}`: change the plan and/or suspend or resume; `changes`
   * names each field that changed (setting what is already set changes nothing).
   */
  async updateOrg(
    orgId: string,
    input: UpdateOrgInput,
    options?: RequestOptions,
  ): Promise<UpdatedOrg> {
    return this.send("PATCH", `/api/enterprise/orgs/${idText(orgId)}`, input, true, options);
  }

  /**
   * Suspends an organization (`updateOrg` with `suspended: true`): its keys and sessions answer
   * 403 `Organization suspended`, its queued writes are held until it is resumed.
   */
  suspendOrg(orgId: string, options?: RequestOptions): Promise<UpdatedOrg> {
    return this.updateOrg(orgId, { suspended: true }, options);
  }

  /** Resumes a suspended organization (`updateOrg` with `suspended: false`). */
  resumeOrg(orgId: string, options?: RequestOptions): Promise<UpdatedOrg> {
    return this.updateOrg(orgId, { suspended: false }, options);
  }

  /** Changes an organization's plan (`updateOrg` with `plan`); limits apply from its next request. */
  changeOrgPlan(orgId: string, plan: OrgPlan, options?: RequestOptions): Promise<UpdatedOrg> {
    return this.updateOrg(orgId, { plan }, options);
  }

  /** `GET /api/enterprise/orgs/{orgId}/keys`: the organization's keys, by prefix only. */
  listOrgKeys(orgId: string, options?: RequestOptions): Promise<OrgKeyList> {
    return this.transport.get(`/api/enterprise/orgs/${idText(orgId)}/keys`, undefined, options);
  }

  /** `DELETE /api/enterprise/orgs/{orgId}/keys/{keyId}`: revokes any key, the last one too. */
  async revokeOrgKey(orgId: string, keyId: string, options?: RequestOptions): Promise<RevokedKey> {
    const path = `/api/enterprise/orgs/${idText(orgId)}/keys/${idText(keyId)}`;
    return this.send("DELETE", path, undefined, true, options);
  }

  // ---- compliance controls (docs/contracts.md "Compliance controls"): each answers once mined ----
  // Freeze, unfreeze and forced transfer wait for a second operator person (docs/people.md
  // "Operator four-eyes"): with four-eyes on they answer the `OperatorRequest` (`status`
  // `pending_approval`), whose `result` is the act's answer once a person approves it.

  /** `POST /api/enterprise/assets/{tokenId}/freeze`: the asset can no longer move. */
  async freezeAsset(
    tokenId: string | number | bigint,
    input: ReasonInput,
    options?: RequestOptions,
  ): Promise<FreezeResult | OperatorRequest> {
    const path = `/api/enterprise/assets/${idText(tokenId)}/freeze`;
    return this.send("POST", path, input, false, options);
  }

  /** `POST /api/enterprise/assets/{tokenId}/unfreeze`. */
  async unfreezeAsset(
    tokenId: string | number | bigint,
    input: ReasonInput,
    options?: RequestOptions,
  ): Promise<FreezeResult | OperatorRequest> {
    const path = `/api/enterprise/assets/${idText(tokenId)}/unfreeze`;
    return this.send("POST", path, input, false, options);
  }

  /**
   * `POST /api/enterprise/assets/{tokenId}/forced-transfer`: moves the asset to `toAddress`
   * (frozen or not, paused or not); a listed asset's listing ends cancelled first.
   */
  async forceTransferAsset(
    tokenId: string | number | bigint,
    input: ForceTransferInput,
    options?: RequestOptions,
  ): Promise<ForceTransferResult | OperatorRequest> {
    const path = `/api/enterprise/assets/${idText(tokenId)}/forced-transfer`;
    return this.send("POST", path, input, false, options);
  }

  /** `POST /api/enterprise/marketplace/pause`: halts every transfer and the marketplace. */
  async pauseMarket(input: ReasonInput, options?: RequestOptions): Promise<PauseResult> {
    return this.send("POST", "/api/enterprise/marketplace/pause", input, false, options);
  }

  /** `POST /api/enterprise/marketplace/resume`. */
  async resumeMarket(input: ReasonInput, options?: RequestOptions): Promise<PauseResult> {
    return this.send("POST", "/api/enterprise/marketplace/resume", input, false, options);
  }

  /**
   * `PATCH /api/enterprise/asset-types/{name}`: a restricted type's tokens go only to
   * allowlisted addresses.
   */
  async setAssetTypeRestricted(
    name: string,
    input: AssetTypeRestrictionInput,
    options?: RequestOptions,
  ): Promise<AssetTypeRestrictionResult> {
    const path = `/api/enterprise/asset-types/${idText(name)}`;
    return this.send("PATCH", path, input, false, options);
  }

  /** `GET /api/enterprise/operator-requests`: the operator requests waiting for a second person. */
  listOperatorRequests(options?: RequestOptions): Promise<OperatorRequestList> {
    return this.transport.get("/api/enterprise/operator-requests", undefined, options);
  }

  /**
   * `GET /api/enterprise/operator-requests/{requestId}`: one operator request (approving and
   * rejecting are a signed-in operator person's, in the console: never the admin token's).
   */
  getOperatorRequest(requestId: string, options?: RequestOptions): Promise<OperatorRequest> {
    return this.transport.get(
      `/api/enterprise/operator-requests/${idText(requestId)}`,
      undefined,
      options,
    );
  }

  /** `GET /api/enterprise/allowlist`: addresses allowed to hold restricted types, as indexed. */
  listAllowlist(options?: RequestOptions): Promise<Allowlist> {
    return this.transport.get("/api/enterprise/allowlist", undefined, options);
  }

  /** `POST /api/enterprise/allowlist`: allows an address to hold restricted types. */
  async addToAllowlist(input: AllowlistInput, options?: RequestOptions): Promise<AllowlistChange> {
    return this.send("POST", "/api/enterprise/allowlist", input, false, options);
  }

  /** `DELETE /api/enterprise/allowlist`: what the address holds stays with it. */
  async removeFromAllowlist(
    input: AllowlistInput,
    options?: RequestOptions,
  ): Promise<AllowlistChange> {
    return this.send("DELETE", "/api/enterprise/allowlist", input, false, options);
  }

  // ---- marketplace and asset types ----

  /**
   * `POST /api/enterprise/marketplace/rescue`: returns a token the marketplace holds without a
   * listing (a plain `transferFrom`) to `toAddress`, from the operator account.
   */
  async rescueMarketplaceToken(
    input: RescueInput,
    options?: RequestOptions,
  ): Promise<RescueResult> {
    return this.send("POST", "/api/enterprise/marketplace/rescue", input, false, options);
  }

  /** `POST /api/console/operator/asset-types`: registers an asset type from the operator account. */
  async registerAssetTypeAsOperator(
    input: OperatorAssetTypeInput,
    options?: RequestOptions,
  ): Promise<OperatorAssetTypeResult> {
    return this.send("POST", "/api/console/operator/asset-types", input, false, options);
  }

  // ---- audit log ----

  /**
   * `GET /api/enterprise/audit-log`: every organization's rows and the service-wide ones, newest
   * first (one organization's with `orgId`); filters `action`, `from`, `to` (ISO 8601); pass
   * `nextCursor` back as `cursor`.
   */
  listAuditLog(
    params: OperatorAuditLogParams = {},
    options?: RequestOptions,
  ): Promise<Page<AuditRecord>> {
    return this.transport.get("/api/enterprise/audit-log", params, options);
  }

  // ---- transport ----

  private async send<T>(
    method: "POST" | "PATCH" | "DELETE",
    path: string,
    body: unknown,
    idempotent: boolean,
    options: RequestOptions | undefined,
  ): Promise<T> {
    const spec = { method, path, body, idempotent, options };
    return (await this.transport.call<T>(spec)).body;
  }
}
