import type { ChainReader } from "../chain/chain-reader.js";

/**
 * Registered asset type names, cached in memory. A name in the cache is registered for good
 * (types are never removed); a miss asks the registry (`isRegistered`) so a type registered by
 * another process is seen at once.
 */
export class AssetTypeCache {
  readonly #known = new Set<string>();
  readonly #reader: ChainReader;

  constructor(reader: ChainReader) {
    this.#reader = reader;
  }

  async isRegistered(name: string): Promise<boolean> {
    if (this.#known.has(name)) return true;
    const registered = await this.#reader.isAssetTypeRegistered(name);
    if (registered) this.#known.add(name);
    return registered;
  }

  /** Records a type this process just registered. */
  remember(name: string): void {
    this.#known.add(name);
  }
}
