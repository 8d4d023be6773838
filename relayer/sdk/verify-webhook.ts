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
  /** Current time in ms (tests). */
  now?: number;
}

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

/** `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256(secret, body)>` (spec section 6). */
async function serviceSignatureValid(
  value: string,
  body: Uint8Array<ArrayBuffer>,
  secret: string,
): Promise<boolean> {
  const match = /^sha256=([0-9a-f]{64})$/.exec(value.trim());
  const signature = match?.[1] === undefined ? undefined : hexToBytes(match[1]);
  if (signature === undefined) return false;
  return macMatches(await hmacKey(encoder.encode(secret)), signature, body);
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
  secret: string,
  toleranceSeconds: number,
  now: number,
): Promise<boolean> {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const keyBytes = secret.startsWith("whsec_")
    ? base64ToBytes(secret.slice("whsec_".length))
    : encoder.encode(secret);
  if (keyBytes === undefined || keyBytes.length === 0) return false;
  const key = await hmacKey(keyBytes);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  for (const candidate of signatures.split(" ")) {
    const [version, encoded] = candidate.split(",", 2);
    if (version !== "v1" || encoded === undefined) continue;
    const signature = base64ToBytes(encoded);
    if (signature !== undefined && (await macMatches(key, signature, data))) return true;
  }
  return false;
}

/**
 * Verifies a webhook delivery against the raw request body (before any JSON parsing), in Node
 * and in browsers (WebCrypto). Every signature present must verify, and at least one must be:
 * `X-Service-Signature` (spec section 6) and/or the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp` within `toleranceSeconds`, `webhook-signature`). Comparisons are
 * constant-time (`crypto.subtle.verify`). Answer 401 when this resolves to false.
 *
 * @param rawBody the exact bytes received
 * @param headers the request headers (`Headers`, Node's `req.headers` or a plain record)
 * @param secret the webhook's secret as returned at creation
 * @returns whether the delivery is authentic
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
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  if (typeof secret !== "string" || secret === "") return false;
  const body = bytesOf(rawBody);
  const service = header(headers, "x-service-signature");
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  const hasStandard = id !== undefined && timestamp !== undefined && signatures !== undefined;
  if (service === undefined && !hasStandard) return false;
  if (service !== undefined && !(await serviceSignatureValid(service, body, secret))) return false;
  if (
    hasStandard &&
    !(await standardSignatureValid(
      id,
      timestamp,
      signatures,
      body,
      secret,
      options.toleranceSeconds ?? 300,
      options.now ?? Date.now(),
    ))
  ) {
    return false;
  }
  return true;
}
