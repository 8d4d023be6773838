import { z } from "zod";
import { timestamp } from "./timestamp.ts";

/** An API key as listed: never the key string or its hash. */
export const apiKeySummary = z.object({
  keyId: z.string(),
  label: z.string().nullable(),
  scopes: z.array(z.string()),
  prefix: z.string().describe("first characters of the key, for recognition"),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable().describe("updated at most once a minute"),
  revokedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable().describe("after it the key answers 401 `API key expired`"),
  allowedIps: z
    .array(z.string())
    .nullable()
    .describe("CIDR ranges the key may be used from (403 elsewhere); null: anywhere"),
});

/** An API key as listed. */
export type ApiKeySummary = z.output<typeof apiKeySummary>;

/** A new key: the key string is shown only here. */
export const createdApiKey = apiKeySummary.extend({
  apiKey: z.string().describe("shown only once"),
});

/** A new key with its key string. */
export type CreatedApiKey = z.output<typeof createdApiKey>;
