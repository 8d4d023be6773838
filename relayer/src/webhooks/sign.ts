import { createHmac } from "node:crypto";

/**
 * `X-Service-Signature` (docs/webhooks.md "Headers and signatures"): `sha256=` + lowercase hex HMAC-SHA256 of the raw body,
 * keyed with the webhook's secret exactly as registered (UTF-8 bytes of the whole string,
 * `whsec_` prefix included).
 */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")}`;
}

/**
 * The Standard Webhooks signing key for a secret: for `whsec_<base64>` secrets the base64-decoded
 * bytes (what the `standardwebhooks` libraries do); for any other secret its UTF-8 bytes (verify
 * with `new Webhook(secret, { format: "raw" })`).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith("whsec_")
    ? Buffer.from(secret.slice("whsec_".length), "base64")
    : Buffer.from(secret, "utf8");
}

/** `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`. */
export function standardWebhooksSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac("sha256", standardWebhooksKey(secret)).update(
    `${id}.${timestampSeconds}.${body}`,
    "utf8",
  );
  return `v1,${mac.digest("base64")}`;
}

/**
 * Every signature header of one delivery attempt. The secret itself is never a header.
 * `X-Service-Signature` is keyed with the current secret (spec section 6: "the webhook's
 * secret"); during a rotation's grace period `webhook-signature` carries one signature per
 * secret, space-separated, current first, as Standard Webhooks does (docs/webhooks.md
 * "Secret rotation").
 *
 * @param messageId the event id (`webhook-id`), stable across retries so receivers can deduplicate
 * @param previousSecrets secrets rotated out whose grace period is still running
 */
export function signatureHeaders(
  secret: string,
  messageId: string,
  body: string,
  nowMs = Date.now(),
  previousSecrets: readonly string[] = [],
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "X-Service-Signature": serviceSignature(secret, body),
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": [secret, ...previousSecrets]
      .map((key) => standardWebhooksSignature(key, messageId, timestamp, body))
      .join(" "),
  };
}
