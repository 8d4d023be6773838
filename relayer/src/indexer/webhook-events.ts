import { createHash } from "node:crypto";
import { checksumAddress } from "../domain/address.js";
import { weiToDecimal } from "../domain/amount.js";
import type pg from "pg";
import type { WebhookEventKind } from "../domain/webhook-event.js";
import type { OutboxEvent } from "../webhooks/event-kinds.js";
import type { StoredEventArgs, StoredLog } from "./stored-log.js";

const ZERO = "0x0000000000000000000000000000000000000000";

interface Candidate {
  kind: WebhookEventKind;
  log: StoredLog;
  /** Lower-case addresses whose organizations receive the event; `"all"`: every organization. */
  parties: string[] | "all";
  data: Record<string, unknown>;
}

const checksum = (address: string) => checksumAddress(address.toLowerCase());

/** Deterministic event id: the same on-chain event for the same org always gets the same id. */
export function outboxEventId(
  orgId: string,
  kind: string,
  txHash: string,
  logIndex: number,
): string {
  return `evt_${createHash("sha256").update(`${orgId}|${kind}|${txHash}|${logIndex}`).digest("hex").slice(0, 32)}`;
}

/** What an `asset.issued` payload reads from the read model, per minted token. */
interface IssuedRow {
  type_name: string | null;
  json: string | null;
  cid: string;
}

/** The read-model rows of the minted tokens among `logs`, in one statement. */
async function issuedRows(
  client: pg.ClientBase,
  logs: readonly StoredLog[],
): Promise<Map<string, IssuedRow>> {
  const tokenIds = logs.flatMap((log) => (log.kind === "AssetIssued" ? [log.args.tokenId] : []));
  if (tokenIds.length === 0) return new Map();
  const { rows } = await client.query<IssuedRow & { token_id: string }>(
    `SELECT x.token_id::text, t.name AS type_name, m.json, x.cid
     FROM assets x LEFT JOIN asset_types t ON t.type_id = x.type_id LEFT JOIN token_metadata m ON m.token_id = x.token_id AND m.mint_tx_hash = x.mint_tx_hash
     WHERE x.token_id = ANY($1::numeric[])`,
    [tokenIds],
  );
  return new Map(rows.map((row) => [row.token_id, row]));
}

function issuedData(
  a: StoredEventArgs<"AssetIssued">,
  row: IssuedRow | undefined,
): Record<string, unknown> {
  let name: string | null = null;
  if (row?.json) {
    try {
      const doc = JSON.parse(row.json) as { name?: unknown };
      if (typeof doc.name === "string") name = doc.name;
    } catch {
      // not our document: no name
    }
  }
  return {
    tokenId: a.tokenId,
    from: ZERO,
    to: checksum(a.owner),
    assetType: row?.type_name ?? null,
    name,
    wallet: checksum(a.owner),
    stakedAmount: weiToDecimal(a.stake),
    stakedAmountWei: a.stake,
    ipfsHash: row?.cid ?? null,
    minter: checksum(a.minter),
  };
}

/** The seller of `tokenId`'s latest listing (lower-case), as a one-element list, or none. */
async function escrowSeller(client: pg.ClientBase, tokenId: string): Promise<string[]> {
  const { rows } = await client.query<{ seller: string }>(
    `SELECT seller FROM listings WHERE token_id = $1 ORDER BY listing_id DESC LIMIT 1`,
    [tokenId],
  );
  return rows.map((r) => r.seller);
}

/**
 * Maps logs to the spec's event kinds (section 6; see docs/webhooks.md). `asset.transferred` is
 * sent for every change of owner between two wallets, secondary-market sales included:
 * AssetIssued → asset.issued (the mint's Transfer is not also asset.transferred);
 * Transfer between two wallets → asset.transferred; ListingCreated → asset.listed;
 * ListingSold → asset.sold and asset.transferred from the seller to the buyer (the token's own
 * Transfer log on a sale runs from the marketplace's escrow, not from the seller);
 * ListingCancelled / ListingReclaimed → asset.delisted (`reason` cancelled / expired);
 * AssetRedeemed → asset.redeemed (the burn's Transfer is not also asset.transferred);
 * AssetFrozen / AssetUnfrozen → asset.frozen / asset.unfrozen (to the holder, or the seller while
 * escrowed); AssetForcedTransfer → asset.forced_transfer (both sides; the token's own Transfer
 * also gives asset.transferred); MarketPaused / MarketResumed → market.paused / market.resumed
 * (every organization).
 * Moves into and out of marketplace escrow (list, delist, reclaim) change no owner and are not
 * transfers; mints and burns are not either.
 */
async function candidatesOf(
  client: pg.ClientBase,
  log: StoredLog,
  marketplace: string,
  issued: ReadonlyMap<string, IssuedRow>,
): Promise<Candidate[]> {
  const { kind, args: a } = log;
  const transferred = (tokenId: string, from: string, to: string): Candidate => ({
    kind: "asset.transferred",
    log,
    parties: [from, to],
    data: { tokenId, from: checksum(from), to: checksum(to) },
  });
  switch (kind) {
    case "AssetIssued":
      return [
        {
          kind: "asset.issued",
          log,
          parties: [a.owner, a.minter],
          data: issuedData(a, issued.get(a.tokenId)),
        },
      ];
    case "Transfer": {
      if (a.from === ZERO || a.to === ZERO || a.from === marketplace || a.to === marketplace)
        return [];
      return [transferred(a.tokenId, a.from, a.to)];
    }
    case "ListingCreated":
      return [
        {
          kind: "asset.listed",
          log,
          parties: [a.seller],
          data: {
            tokenId: a.tokenId,
            from: checksum(a.seller),
            to: checksum(marketplace),
            listingId: a.listingId,
            price: weiToDecimal(a.price),
            priceWei: a.price,
            seller: checksum(a.seller),
            expiresAt: new Date(Number(a.expiresAt) * 1000).toISOString(),
          },
        },
      ];
    case "ListingSold":
      return [
        {
          kind: "asset.sold",
          log,
          parties: [a.seller, a.buyer],
          data: {
            tokenId: a.tokenId,
            from: checksum(a.seller),
            to: checksum(a.buyer),
            listingId: a.listingId,
            buyer: checksum(a.buyer),
            seller: checksum(a.seller),
            price: weiToDecimal(a.price),
            priceWei: a.price,
          },
        },
        transferred(a.tokenId, a.seller, a.buyer),
      ];
    case "ListingCancelled":
    case "ListingReclaimed":
      return [
        {
          kind: "asset.delisted",
          log,
          parties: [a.seller],
          data: {
            tokenId: a.tokenId,
            from: checksum(marketplace),
            to: checksum(a.seller),
            listingId: a.listingId,
            seller: checksum(a.seller),
            reason: kind === "ListingCancelled" ? "cancelled" : "expired",
          },
        },
      ];
    case "AssetRedeemed":
      return [
        {
          kind: "asset.redeemed",
          log,
          parties: [a.owner],
          data: {
            tokenId: a.tokenId,
            from: checksum(a.owner),
            to: ZERO,
            owner: checksum(a.owner),
            stakeReturned: weiToDecimal(a.stake),
            stakeReturnedWei: a.stake,
          },
        },
      ];
    case "AssetFrozen":
    case "AssetUnfrozen":
      return [
        {
          kind: kind === "AssetFrozen" ? "asset.frozen" : "asset.unfrozen",
          log,
          // While escrowed the holder is the marketplace: its seller's organization is told.
          parties: [
            a.holder,
            ...(a.holder === marketplace ? await escrowSeller(client, a.tokenId) : []),
          ],
          data: { tokenId: a.tokenId, holder: checksum(a.holder), reason: a.reason },
        },
      ];
    case "AssetForcedTransfer":
      return [
        {
          kind: "asset.forced_transfer",
          log,
          parties: [
            a.from,
            a.to,
            ...(a.from === marketplace ? await escrowSeller(client, a.tokenId) : []),
          ],
          data: {
            tokenId: a.tokenId,
            from: checksum(a.from),
            to: checksum(a.to),
            reason: a.reason,
          },
        },
      ];
    case "MarketPaused":
    case "MarketResumed":
      return [
        {
          kind: kind === "MarketPaused" ? "market.paused" : "market.resumed",
          log,
          parties: "all",
          data: { by: checksum(a.by), reason: a.reason },
        },
      ];
    // No webhook kind for these (docs/webhooks.md).
    case "AssetTypeRestrictionSet":
    case "AllowlistUpdated":
    case "AssetTypeRegistered":
    case "MetadataUpdate":
    case "BatchMetadataUpdate":
    case "ListingPriceUpdated":
      return [];
    default: {
      // An indexed event with no case above is a type error here.
      const unhandled: never = kind;
      void unhandled;
      return [];
    }
  }
}

/**
 * The outbox events for a batch of freshly applied logs: one per (event, organization whose
 * custodial wallet is a party). Run after `applyLogs` in the same transaction.
 *
 * @param marketplace lower-case marketplace address (escrow moves are not transfers)
 */
export async function webhookEventsForLogs(
  client: pg.ClientBase,
  logs: readonly StoredLog[],
  marketplace: string,
): Promise<OutboxEvent[]> {
  const candidates: Candidate[] = [];
  const issued = await issuedRows(client, logs);
  for (const log of logs) {
    candidates.push(...(await candidatesOf(client, log, marketplace, issued)));
  }
  if (candidates.length === 0) return [];
  const addresses = [...new Set(candidates.flatMap((c) => (c.parties === "all" ? [] : c.parties)))];
  const { rows } = await client.query<{ org_id: string; address: string }>(
    `SELECT org_id, lower(address) AS address FROM wallets WHERE lower(address) = ANY($1::text[])`,
    [addresses],
  );
  const orgByAddress = new Map(rows.map((r) => [r.address, r.org_id]));
  const everyOrg = candidates.some((c) => c.parties === "all")
    ? (await client.query<{ org_id: string }>(`SELECT DISTINCT org_id FROM wallets`)).rows.map(
        (r) => r.org_id,
      )
    : [];
  const events: OutboxEvent[] = [];
  for (const c of candidates) {
    const orgIds = new Set(
      c.parties === "all"
        ? everyOrg
        : c.parties.map((p) => orgByAddress.get(p)).filter((o): o is string => o !== undefined),
    );
    for (const orgId of orgIds) {
      events.push({
        id: outboxEventId(orgId, c.kind, c.log.txHash, c.log.logIndex),
        orgId,
        kind: c.kind,
        blockNumber: c.log.blockNumber,
        blockHash: c.log.blockHash,
        txHash: c.log.txHash,
        logIndex: c.log.logIndex,
        payload: {
          event: c.kind,
          timestamp: c.log.blockTimestamp * 1000,
          orgId,
          txHash: c.log.txHash,
          blockNumber: c.log.blockNumber,
          data: c.data,
        },
      });
    }
  }
  return events;
}
