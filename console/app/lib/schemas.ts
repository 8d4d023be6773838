import { z } from "zod";
import { PLANS, SCOPES, WEBHOOK_EVENTS } from "./constants";

/**
 * Form schemas. They mirror the relayer's own validation so mistakes show next to the field
 * before a round trip; the relayer still validates everything.
 */

/** Sign-in: an org API key (`rwa_live_` + 64 hex) or the operator's admin token. */
export const signInSchema = z.object({
  credential: z
    .string()
    .trim()
    .min(1, "Paste an API key or the admin token")
    .regex(
      /^(rwa_live_[0-9a-fA-F]{64}|ent_admin_[0-9a-f]{64})$/,
      "Expected rwa_live_ or ent_admin_ followed by 64 hex characters",
    ),
});

/** A person's sign-in: email, password and the authenticator app's current 6-digit code. */
export const personSignInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email").max(254, "At most 254 characters"),
  password: z.string().min(1, "Enter your password").max(1024, "At most 1024 characters"),
  totp: z
    .string()
    .trim()
    .regex(/^\d{6}$/, "Enter the 6-digit code from your authenticator app"),
});

/** Accepting an invitation: the new password, twice (12 to 256 characters, as the relayer asks). */
export const acceptInvitationSchema = z
  .object({
    password: z.string().min(12, "At least 12 characters").max(256, "At most 256 characters"),
    confirm: z.string(),
  })
  .refine((value) => value.password === value.confirm, {
    path: ["confirm"],
    message: "The two passwords differ",
  });

/** The organization roles a person can hold (docs/people.md). */
export const ORG_ROLES = ["owner", "admin", "approver", "developer", "viewer"] as const;

/** Inviting a person: their email and role. */
export const invitePersonSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1, "Enter an email")
    .max(254, "At most 254 characters")
    .regex(/^[^\s@]+@[^\s@]+$/, "Enter an email address"),
  role: z.enum(ORG_ROLES),
});

export const createKeySchema = z.object({
  label: z.string().trim().max(100, "At most 100 characters"),
  scopes: z.array(z.enum(SCOPES)).min(1, "Choose at least one scope"),
  /** A `datetime-local` value (the browser's time zone), or empty for a key that never expires. */
  expiresAt: z
    .string()
    .refine((value) => value === "" || !Number.isNaN(Date.parse(value)), "Enter a date and time")
    .refine(
      (value) => value === "" || Date.parse(value) > Date.now(),
      "Choose a time in the future",
    )
    .transform((value) => (value === "" ? undefined : new Date(value).toISOString())),
});

export const createWebhookSchema = z
  .object({
    url: z
      .string()
      .trim()
      .min(1, "Enter the URL that receives events")
      .max(2048, "At most 2048 characters")
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === "https:" || url.protocol === "http:";
        } catch {
          return false;
        }
      }, "Enter a full URL, e.g. https://example.com/hooks/rwa"),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, "Choose at least one event"),
    secretMode: z.enum(["generate", "given"]),
    secret: z.string(),
  })
  .superRefine((value, ctx) => {
    if (value.secretMode === "given" && (value.secret.length < 16 || value.secret.length > 256)) {
      ctx.addIssue({ code: "custom", path: ["secret"], message: "16 to 256 characters" });
    }
  });

export const registerOrgSchema = z.object({
  orgName: z.string().trim().min(1, "Enter a name").max(100, "At most 100 characters"),
  plan: z.enum(PLANS),
  scopes: z.array(z.enum(SCOPES)).min(1, "Choose at least one scope"),
});

export const assetTypeSchema = z.object({
  typeName: z.string().trim().min(1, "Enter a type name").max(64, "At most 64 characters"),
});

/** Operator rescue of a token held by the marketplace without a listing. */
export const rescueTokenSchema = z.object({
  tokenId: z
    .string()
    .trim()
    .regex(/^\d{1,78}$/, "Enter a token id (digits only)"),
  toAddress: z
    .string()
    .trim()
    .regex(/^0x[0-9a-fA-F]{40}$/, "Enter a 0x address (40 hex characters)"),
});

export const assetFilterSchema = z.object({
  assetType: z.string().trim().max(64, "At most 64 characters"),
});

/** Field name → first message, from a failed `safeParse`. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    out[key] ??= issue.message;
  }
  return out;
}

/** A positive native-coin amount as the relayer takes it: "1.5", at most 18 decimals. */
const coinAmount = z
  .string()
  .trim()
  .regex(/^\d{1,30}(\.\d{1,18})?$/, "Enter an amount such as 1.5")
  .refine((value) => /[1-9]/.test(value), "Must be more than 0");

export const listAssetSchema = z.object({
  priceInCOIN: coinAmount,
  durationDays: z
    .string()
    .trim()
    .regex(/^\d{1,3}$/, "Whole days, 1 to 365")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 365, "Whole days, 1 to 365"),
});

export const transferAssetSchema = z.object({
  toAddress: z
    .string()
    .trim()
    .regex(/^0x[0-9a-fA-F]{40}$/, "Enter a 0x address (40 hex characters)")
    .refine((value) => !/^0x0{40}$/.test(value), "The zero address cannot hold tokens"),
});

/** Actions without fields (delist, buy) still go through a schema. */
export const noFieldsSchema = z.object({});

/** Redeem of a password-protected asset: the password it was issued with. */
export const redeemAssetSchema = z.object({
  password: z.string().min(1, "Enter the asset's password"),
});

/** The low-balance threshold form (`PUT /api/enterprise/wallet/alerts`): 0 turns it off. */
export const walletAlertsSchema = z.object({
  lowBalance: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,18})?$/, "Enter an amount such as 1.5 (0 turns the alert off)"),
});
