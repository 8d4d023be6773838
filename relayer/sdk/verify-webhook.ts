/** Headers as `fetch` gives them, or as Node's `IncomingMessage.headers`, or a plain record. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /**
   * Largest accepted distance between `webhook-timestamp` and now, in seconds (replay guard for
   * Standard Webhooks headers). Default 300.
   */
  toleranceSeconds?: number;
  /**
   * Require the timestamped Standard Webhooks signature (default true). `X-Service-Signature`
   * covers the body only, so a captured delivery carrying just that header could be replayed at
   * any time; every relayer delivery carries both. Set false only for a sender that signs with
   * `X-Service-Signature` alone (then nothing bounds a replay).
   */
  requireTimestamp?: boolean;
  /** Current time in ms (tests). */
  now?: number;
}

/** One secret, or several while a webhook's secret is being rotated (any one may match). */
export type WebhookSecrets = string | readonly string[];

const encoder = new TextEncoder();

/** WebCrypto's `CryptoKey` (named without the DOM lib). */
type HmacKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return typeof value === "string" ? value : value[0];
  }
  return undefined;
}

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return encoder.encode(body);
  const view = body instanceof Uint8Array ? body : new Uint8Array(body);
  return new Uint8Array(view); // a copy backed by a plain ArrayBuffer, as WebCrypto wants
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
  return out;
}

async function hmacKey(secret: Uint8Array<ArrayBuffer>): Promise<HmacKey> {
  return globalThis.crypto.subtle.importKey(
    "raw",
    secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
}

/** `crypto.subtle.verify` compares MACs in constant time. */
async function macMatches(
  key: HmacKey,
  signature: Uint8Array<ArrayBuffer>,
  data: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  if (signature.length !== 32) return false;
  return globalThis.crypto.subtle.verify("HMAC", key, signature, data);
}

/**
 * `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256(secret, body)>` (docs/webhooks.md). The
 * header may carry several signatures separated by commas or spaces (one per secret while a
 * secret is rotated); one matching any secret is enough.
 */
async function serviceSignatureValid(
  value: string,
  body: Uint8Array<ArrayBuffer>,
  secrets: readonly string[],
): Promise<boolean> {
  const signatures: Array<Uint8Array<ArrayBuffer>> = [];
  for (const candidate of value.split(/[\s,]+/)) {
    const match = /^sha256=([0-9a-f]{64})$/.exec(candidate);
    const signature = match?.[1] === undefined ? undefined : hexToBytes(match[1]);
    if (signature !== undefined) signatures.push(signature);
  }
  for (const secret of secrets) {
    const key = await hmacKey(encoder.encode(secret));
    for (const signature of signatures) if (await macMatches(key, signature, body)) return true;
  }
  return false;
}

/**
 * Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> ...`):
 * HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed with the base64 part of a `whsec_` secret or
 * the UTF-8 bytes of any other secret (as the relayer signs).
 */
async function standardSignatureValid(
  id: string,
  timestamp: string,
  signatures: string,
  body: Uint8Array<ArrayBuffer>,
  secrets: readonly string[],
  toleranceSeconds: number,
  now: number,
): Promise<boolean> {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  const candidates: Array<Uint8Array<ArrayBuffer>> = [];
  for (const candidate of signatures.trim().split(/\s+/)) {
    const [version, encoded] = candidate.split(",", 2);
    if (version !== "v1" || encoded === undefined) continue;
    const signature = base64ToBytes(encoded);
    if (signature !== undefined) candidates.push(signature);
  }
  for (const secret of secrets) {
    const keyBytes = secret.startsWith("whsec_")
      ? base64ToBytes(secret.slice("whsec_".length))
      : encoder.encode(secret);
    if (keyBytes === undefined || keyBytes.length === 0) continue;
    const key = await hmacKey(keyBytes);
    for (const signature of candidates) if (await macMatches(key, signature, data)) return true;
  }
  return false;
}

/**
 * Verifies a webhook delivery against the raw request body (before any JSON parsing), in Node
 * and in browsers (WebCrypto). By default the timestamped Standard Webhooks signature
 * (`webhook-id`, `webhook-timestamp` within `toleranceSeconds` of now, default 5 minutes,
 * `webhook-signature`) is required, so a captured delivery cannot be replayed later; every
 * signature header present must verify (`X-Service-Signature` too, docs/webhooks.md). Each
 * header may carry several signatures and `secret` may be a list, for secret rotation: one
 * match per header is enough. Comparisons are constant-time (`crypto.subtle.verify`). Answer
 * 401 when this resolves to false; deduplicate on `webhook-id` (retries keep it).
 *
 * @param rawBody the exact bytes received
 * @param headers the request headers (`Headers`, Node's `req.headers` or a plain record)
 * @param secret the webhook's secret as returned at creation, or several during a rotation
 * @param options `toleranceSeconds` (default 300); `requireTimestamp: false` also accepts a
 *   delivery signed with `X-Service-Signature` alone (not replay-safe)
 * @returns whether the delivery is authentic and fresh
 *
 * @example
 * app.post("/hooks", express.raw({ type: "application/json" }), async (req, res) => {
 *   if (!(await verifyWebhook(req.body, req.headers, process.env.WEBHOOK_SECRET!))) return res.sendStatus(401);
 *   const event = JSON.parse(req.body.toString("utf8"));
 *   res.sendStatus(204);
 * });
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: WebhookSecrets,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  const secrets = (typeof secret === "string" ? [secret] : [...secret]).filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  if (secrets.length === 0) return false;
  const body = bytesOf(rawBody);
  const service = header(headers, "x-service-signature");
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  const hasStandard = id !== undefined && timestamp !== undefined && signatures !== undefined;
  if (!hasStandard && (options.requireTimestamp ?? true)) return false;
  if (service === undefined && !hasStandard) return false;
  if (service !== undefined && !(await serviceSignatureValid(service, body, secrets))) return false;
  if (
    hasStandard &&
    !(await standardSignatureValid(
      id,
      timestamp,
      signatures,
      body,
      secrets,
      options.toleranceSeconds ?? 300,
      options.now ?? Date.now(),
    ))
  ) {
    return false;
  }
  return true;
}
