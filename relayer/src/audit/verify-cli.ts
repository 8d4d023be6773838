/**
 * `npm run audit:verify`: walks the audit log's hash chain (`verify-chain.ts`) on the relayer's
 * database (`DATABASE_URL`, else the embedded one of `DATA_DIR`) and prints either
 * `N rows, chain intact` (exit 0) or the first broken link, naming its row and what was expected
 * there (exit 1); exit 2 when it cannot read the log. Reads only; safe while the service runs.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { openCliDatabase } from "../infra/cli-database.js";
import { verifyAuditChain, type ChainVerdict } from "./verify-chain.js";

/** The verdict as the command prints it. */
export function verdictText(verdict: ChainVerdict): string {
  if (verdict.intact) return `${verdict.rows} rows, chain intact`;
  return (
    `Audit chain broken at row ${verdict.brokenAt}: ${verdict.reason}\n` +
    `(${verdict.rows} rows before it are intact)`
  );
}

async function main(): Promise<number> {
  const cli = await openCliDatabase();
  const { database } = cli;
  try {
    const verdict = await verifyAuditChain(database.pool).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === "42P01")
        throw new Error(
          "This database has no audit log yet: start the service once (it applies the migrations)",
          { cause: error },
        );
      throw error;
    });
    const text = verdictText(verdict);
    if (verdict.intact) console.log(text);
    else console.error(text);
    return verdict.intact ? 0 : 1;
  } finally {
    await cli.close();
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(path.resolve(entry)).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 2;
    },
  );
}
