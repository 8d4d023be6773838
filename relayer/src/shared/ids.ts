import { randomBytes } from "node:crypto";

/**
 * A new random identifier with a type prefix: `org_`, `key_`, `wal_`, `wh_` followed by 24 hex
 * characters (96 random bits: unguessable and collision-free in practice).
 */
export function newId(
  prefix: "org" | "key" | "wal" | "wh" | "usr" | "inv" | "opr" | "wac",
): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}
