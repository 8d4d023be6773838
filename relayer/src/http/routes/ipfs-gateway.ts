import { Router } from "express";
import { CID } from "multiformats/cid";
import type { AppContext } from "../../context.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { readBlock } from "../../metadata/read-block.js";

/** Path of the local IPFS gateway route (documented in `http/openapi/extra-operations.ts`). */
export const IPFS_GATEWAY_PATH = "/ipfs/:cid";

/**
 * A local, read-only IPFS gateway for metadata documents: `GET /ipfs/<cid>` answers the block's
 * bytes (verified against the CID) as a trustless gateway does for a raw block, so the CID a
 * token stores on chain resolves here as on any public gateway. Public, like `/api/v1/nft/{id}`.
 * Only documents this service holds: any other CID is 404 at once, and the IPFS node behind the
 * service is never asked (`metadata/read-block.ts`).
 */
export function ipfsGatewayRouter(ctx: AppContext): Router {
  const router = Router();
  router.get(IPFS_GATEWAY_PATH, async (req, res) => {
    let cid: CID;
    try {
      cid = CID.parse(req.params.cid);
    } catch {
      throw new ValidationError("Invalid field: cid (not a valid IPFS CID)");
    }
    const bytes = await readBlock(ctx.database, cid);
    if (bytes === undefined) throw new NotFoundError("Not found");
    res.setHeader(
      "Content-Type",
      looksLikeJson(bytes) ? "application/json" : "application/octet-stream",
    );
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", "default-src 'none'; sandbox");
    res.setHeader("Cache-Control", "public, max-age=29030400, immutable");
    res.setHeader("Etag", `"${cid.toString()}"`);
    res.setHeader("X-Ipfs-Path", `/ipfs/${cid.toString()}`);
    res.send(Buffer.from(bytes));
  });
  return router;
}

function looksLikeJson(bytes: Uint8Array): boolean {
  return bytes[0] === 0x7b; // "{": the documents this service writes
}
