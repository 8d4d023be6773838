import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Helia } from "@helia/interface";
import type { HeliaInit } from "helia";
import type { CID } from "multiformats/cid";
import type { Logger } from "pino";
import type { IpfsTarget } from "./ipfs-target.js";

/**
 * The embedded IPFS node: Helia's light node without networking (no libp2p, no bitswap, no HTTP
 * block brokers, so it never dials out; the machines this runs on may have no network),
 * its blocks and pins kept on disk under `DATA_DIR/ipfs`. Documents are served to the world by
 * the relayer's own gateway route (`/ipfs/<cid>`). Helia is imported and started by the pin
 * workers as they start (`warm`: about 300 ms of module loading on the event loop, which the
 * first mint after a restart used to stall every request for), else on first use, so a process
 * that never pins (`RELAYER_ROLE=api`) pays nothing at start-up.
 */
export function embeddedIpfsTarget(dataDir: string, logger: Logger): IpfsTarget {
  let starting: Promise<Helia> | undefined;
  const node = () => {
    starting ??= startNode(path.join(dataDir, "ipfs"), logger);
    return starting;
  };
  return {
    name: "embedded",
    async pin(cid: CID, bytes: Uint8Array): Promise<void> {
      const helia = await node();
      await helia.blockstore.put(cid, bytes);
      if (await helia.pins.isPinned(cid)) return;
      for await (const _pinned of helia.pins.add(cid, { offline: true } as never)) {
        // drains the pin walk (one raw block)
      }
    },
    async warm(): Promise<void> {
      await node();
    },
    async get(cid: CID): Promise<Uint8Array | undefined> {
      const helia = await node();
      if (!(await helia.blockstore.has(cid))) return undefined;
      const chunks: Uint8Array[] = [];
      for await (const chunk of helia.blockstore.get(cid, { offline: true })) chunks.push(chunk);
      return Buffer.concat(chunks);
    },
    async stop(): Promise<void> {
      if (starting === undefined) return;
      const helia = await starting.catch(() => undefined);
      starting = undefined;
      await helia?.stop();
    },
  };
}

/** The light node's class: what `createHeliaLight` constructs. */
type HeliaLightClass = new (init: HeliaInit & { name: string; version: string }) => Helia;

/**
 * Loads Helia's node class from its own module rather than the package entry: the entry also
 * loads libp2p, bitswap and HTTP block brokers (none used offline; about 3 s of imports here, and
 * an undici build that fails to load on Node 20). `helia` is pinned to an exact version, and the
 * IPFS tests exercise this path.
 */
async function loadHeliaLight(): Promise<HeliaLightClass> {
  const entry = import.meta.resolve("helia");
  const module = (await import(new URL("./helia.js", entry).href)) as { Helia: HeliaLightClass };
  return module.Helia;
}

async function startNode(directory: string, logger: Logger): Promise<Helia> {
  const started = performance.now();
  const [Helia, { FsBlockstore }, { FsDatastore }] = await Promise.all([
    loadHeliaLight(),
    import("blockstore-fs"),
    import("datastore-fs"),
  ]);
  await mkdir(directory, { recursive: true });
  const helia = new Helia({
    name: "rwa-relayer",
    version: "1",
    blockstore: new FsBlockstore(path.join(directory, "blocks")),
    datastore: new FsDatastore(path.join(directory, "datastore")),
  });
  await helia.start();
  logger.info(
    { directory, ms: Math.round(performance.now() - started) },
    "embedded IPFS node started",
  );
  return helia;
}
