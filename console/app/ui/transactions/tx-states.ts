import type { TxStatus } from "../../lib/types";
import type { Tone } from "../common/states";

/** States in which a write still changes: its screens refresh while one is shown. */
export const LIVE_STATES: readonly TxStatus[] = ["queued", "sent", "mined"];

/** How often a screen showing a live write reads it again. */
export const LIVE_REFRESH_MS = 1500;

/** The colour of each state, in the list and in a write's timeline. */
export const STATUS_TONES: Readonly<Record<TxStatus, Tone>> = {
  queued: "off",
  sent: "live",
  mined: "live",
  confirmed: "ok",
  failed: "bad",
  replaced: "bad",
  cancelled: "off",
  expired: "off",
};
