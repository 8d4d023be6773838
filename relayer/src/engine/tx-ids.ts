import { randomBytes } from "node:crypto";

/** A new transaction id: `tx_` + 24 hex characters. */
export function newTxId(): string {
  return `tx_${randomBytes(12).toString("hex")}`;
}
