import type { Logger } from "pino";
import type { IpfsSettings } from "../context.js";
import { embeddedIpfsTarget } from "./embedded-ipfs.js";
import type { IpfsTarget } from "./ipfs-target.js";
import { kuboTarget } from "./kubo-ipfs.js";
import { pinningServiceTarget } from "./pinning-service.js";

/**
 * The IPFS target the configuration names (`config.ipfs`), or the embedded node under
 * `DATA_DIR/ipfs` when none is configured. Nothing starts until the first pin or read.
 */
export function createIpfsTarget(
  settings: IpfsSettings | undefined,
  dataDir: string,
  logger: Logger,
): IpfsTarget {
  const chosen = settings ?? { kind: "embedded" };
  switch (chosen.kind) {
    case "kubo":
      return kuboTarget(chosen.url);
    case "pinning-service":
      return pinningServiceTarget(chosen.url, chosen.token);
    case "embedded":
      return embeddedIpfsTarget(dataDir, logger);
  }
}
