import { formatTime } from "../../lib/format";
import type { OrgOverview } from "../../lib/types";
import { StatusPill } from "../common/states";

/** An organization's state as a pill: active, or suspended (since when, in the title). */
export function OrgStatus({ org }: { org: OrgOverview }) {
  return org.suspended ? (
    <StatusPill tone="bad" title={formatTime(org.suspendedAt)} testId="org-status">
      suspended
    </StatusPill>
  ) : (
    <StatusPill tone="ok" testId="org-status">
      active
    </StatusPill>
  );
}
