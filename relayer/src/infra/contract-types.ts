import { existsSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT, runHardhatBuild } from "../../../deploy/artifacts.js";

/** The generated TypeChain entry point: present once `npm run build` has run. */
export const CONTRACT_TYPES_ENTRY = path.join(PROJECT_ROOT, "typechain-types", "index.ts");

/** The generated contract types are missing and will not be built here (production). */
export class ContractTypesMissingError extends Error {
  override name = "ContractTypesMissingError";
}

/**
 * Makes sure the TypeChain types the relayer imports exist before anything imports them
 * (`main.ts` loads the rest of the relayer only after this). They are generated, not committed
 * (see README "Layout"). In development a missing `typechain-types/` is built on the spot; a
 * production start never compiles and says what to run instead.
 *
 * @throws ContractTypesMissingError in production when `typechain-types/` is missing
 */
export async function ensureContractTypes(options: {
  production: boolean;
  print: (line: string) => void;
}): Promise<void> {
  if (existsSync(CONTRACT_TYPES_ENTRY)) return;
  if (options.production) {
    throw new ContractTypesMissingError(
      "The compiled contracts and their TypeChain types are missing (artifacts/ and " +
        "typechain-types/ are generated, not committed). Run `npm run build` before `npm start`.",
    );
  }
  options.print("Compiling contracts and generating typechain-types/ (hardhat build)...");
  await runHardhatBuild();
}
