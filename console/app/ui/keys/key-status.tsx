import { formatTime } from "../../lib/format";
import type { ApiKeySummary } from "../../lib/types";
import type { Column } from "../common/data-table";
import { StatusPill } from "../common/states";

/** A key's state: revoked, expired (its `expiresAt` has passed) or active. */
export function keyState(key: ApiKeySummary, now = Date.now()): "active" | "revoked" | "expired" {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return "expired";
  return "active";
}

/** The "Status" column of a key list (the org's own keys, and an org's keys for operators). */
export function keyStatusColumn(): Column<ApiKeySummary> {
  return {
    id: "status",
    header: "Status",
    cell: (key) => {
      const state = keyState(key);
      if (state === "active") return <StatusPill tone="ok">active</StatusPill>;
      const at = state === "revoked" ? key.revokedAt : key.expiresAt;
      return (
        <StatusPill tone="off" title={formatTime(at)}>
          {state}
        </StatusPill>
      );
    },
    sortValue: (key) => ["active", "expired", "revoked"].indexOf(keyState(key)),
  };
}
