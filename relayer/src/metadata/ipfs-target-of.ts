import type { AppContext } from "../context.js";
import { embeddedIpfsTarget } from "./embedded-ipfs.js";
import type { IpfsTarget } from "./ipfs-target.js";
import { kuboTarget } from "./kubo-ipfs.js";
import { pinningServiceTarget } from "./pinning-service.js";

const targets = new WeakMap<AppContext, IpfsTarget>();

/**
 * The IPFS target of `ctx` (one per context, created on first use): `config.ipfs`, or the
 * embedded node under `DATA_DIR/ipfs` when none is configured.
 */
export function ipfsTargetOf(ctx: AppContext): IpfsTarget {
  let target = targets.get(ctx);
  if (target === undefined) {
    const settings = ctx.config.ipfs ?? { kind: "embedded" };
    target =
      settings.kind === "kubo"
        ? kuboTarget(settings.url)
        : settings.kind === "pinning-service"
          ? pinningServiceTarget(settings.url, settings.token)
          : embeddedIpfsTarget(ctx.config.dataDir, ctx.logger);
    targets.set(ctx, target);
  }
  return target;
}

/** Stops the target of `ctx` if one was created (the embedded node closes its stores). */
export async function stopIpfsTarget(ctx: AppContext): Promise<void> {
  const target = targets.get(ctx);
  targets.delete(ctx);
  await target?.stop();
}
