/** The chain indexer: `startIndexer(ctx)` (see start-indexer.ts). */
export { startIndexer, type IndexerHandle, type IndexerOptions } from "./start-indexer.js";
