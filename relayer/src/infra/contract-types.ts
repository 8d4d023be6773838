import { existsSync } from "node:fs";
import { contractTypesEntry, ensureArtifacts } from "../../../deploy/artifacts.js";

/** The generated TypeChain entry point: present once `npm run build` has run. */
export const CONTRACT_TYPES_ENTRY = contractTypesEntry();

/** The generated contract types are missing and will not be built here (production). */
export class ContractTypesMissingError extends Error {
  override name = "ContractTypesMissingError";
}

/**
 * Makes sure the TypeChain types the relayer imports exist and are fresh before anything imports
 * them (`main.ts` loads the rest of the relayer only after this). They are generated, not
 * committed (see docs/development.md "Generated code"). In development a missing or stale build (a contract source
 * newer than its artifact) is rebuilt on the spot, so the relayer's bindings and the contracts
 * the local chain deploys (deploy/deploy.ts, through the same factories) come from one build; a
 * production start never compiles and says what to run instead.
 *
 * @throws ContractTypesMissingError in production when `typechain-types/` is missing
 */
export async function ensureContractTypes(options: {
  production: boolean;
  print: (line: string) => void;
}): Promise<void> {
  if (options.production) {
    if (existsSync(CONTRACT_TYPES_ENTRY)) return;
    throw new ContractTypesMissingError(
      "The compiled contracts and their TypeChain types are missing (artifacts/ and " +
        "typechain-types/ are generated, not committed). Run `npm run build` before `npm start`.",
    );
  }
  await ensureArtifacts({ mode: "auto", log: options.print });
}
