import { z } from "zod";

/**
 * Every scope a key can carry (docs/api-decisions.md). `write:all` is an alias,
 * expanded on use (`auth/scopes.ts`).
 */
export const SCOPES = [
  "read",
  "write:issue",
  "write:transfer",
  "write:marketplace",
  "webhooks",
  "admin:types",
  "write:all",
] as const;

/** One scope name. */
export type Scope = (typeof SCOPES)[number];

/** A scope name. */
export const scope = z.enum(SCOPES);

/** The scopes `write:all` stands for. */
export const WRITE_SCOPES = [
  "write:issue",
  "write:transfer",
  "write:marketplace",
] as const satisfies readonly Scope[];

/** Scopes an organization gets when `register` is called without `scopes`. */
export const DEFAULT_ORG_SCOPES = [
  "read",
  "write:issue",
  "write:transfer",
  "write:marketplace",
  "webhooks",
] as const satisfies readonly Scope[];
