import { getAddress } from "ethers";
import type { Database } from "../db/client.js";
import type { AssetTypeRecord } from "../domain/asset.js";

/** Every registered asset type, in registration order. */
export async function listAssetTypes(database: Database): Promise<AssetTypeRecord[]> {
  const { rows } = await database.pool.query<{
    name: string;
    type_id: string;
    type_index: number;
    registrar: string;
    tx_hash: string;
    registered_at: Date;
    restricted: boolean;
  }>(
    `SELECT name, type_id, type_index, registrar, tx_hash, registered_at, restricted FROM asset_types ORDER BY type_index`,
  );
  return rows.map((r) => ({
    name: r.name,
    typeId: r.type_id,
    index: r.type_index,
    registrar: getAddress(r.registrar),
    txHash: r.tx_hash,
    registeredAt: r.registered_at.toISOString(),
    restricted: r.restricted,
  }));
}
