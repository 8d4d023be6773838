import { parseArgs } from "node:util";
import { parseEnv } from "../config.js";
import type { Database } from "../db/client.js";
import { SYSTEM_ORIGIN, type AuditOrigin } from "../audit/audit-writer.js";
import { OPERATOR_ROLES, isOperatorRole, type OperatorRole } from "../domain/person.js";
import { ConfigError } from "../errors.js";
import { openCliDatabase } from "../infra/cli-database.js";
import { invitePersonIn, type InvitedPerson } from "./people.js";

/**
 * Operator staff as people (docs/people.md "Operator staff"): a user with an operator role and no
 * organization. The first one is invited from the command line
 * (`npm run operator -- invite you@example.com --role operator-admin`, entry
 * `relayer/src/operator.ts`); the link it prints is accepted like an organization's invitation
 * (password and TOTP), and the person signs in the same way.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Invites an operator person: a user row without organization and a single-use link valid 72 h.
 * Appends `user.invited` (organization null).
 *
 * @throws ConflictError when an active person already has the email
 */
export async function inviteOperator(
  database: Database,
  input: { email: string; role: OperatorRole },
  origin: AuditOrigin,
  baseUrl: string,
): Promise<InvitedPerson<OperatorRole>> {
  return database.db.transaction((tx) =>
    invitePersonIn(tx, null, input, "operator", origin, baseUrl),
  );
}

interface CommandIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
  printError: (line: string) => void;
}

const USAGE = `Usage: npm run operator -- invite EMAIL --role ${OPERATOR_ROLES.join("|")}`;

/**
 * `npm run operator -- invite EMAIL --role ROLE`: invites an operator person and prints the
 * one-time link (shown once; only its hash is stored). The database is found as every
 * command-line tool finds it (`DATABASE_URL`, else the embedded one of `DATA_DIR`); the link's
 * base is `PUBLIC_BASE_URL`, else `http://localhost:PORT`. The audit log records the invitation
 * as `system`. Returns the exit code: 0 done, 1 refused (the reason printed), 2 usage.
 */
export async function operatorCommand(io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseInvite>;
  try {
    parsed = parseInvite(io.argv);
  } catch (error) {
    io.printError(error instanceof Error ? error.message : String(error));
    io.printError(USAGE);
    return 2;
  }
  try {
    const settings = parseEnv(io.env);
    const baseUrl = settings.publicBaseUrl ?? `http://localhost:${settings.port}`;
    const cli = await openCliDatabase(io.env);
    try {
      const invited = await inviteOperator(cli.database, parsed, SYSTEM_ORIGIN, baseUrl);
      io.print(`Invited ${invited.email} as ${invited.role} (${invited.userId}).`);
      io.print(`One-time invitation link, valid until ${invited.invitation.expiresAt}:`);
      io.print(invited.invitation.url);
      return 0;
    } finally {
      await cli.close();
    }
  } catch (error) {
    io.printError(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

function parseInvite(argv: readonly string[]): { email: string; role: OperatorRole } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { role: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const [command, email, ...rest] = positionals;
  if (command !== "invite") throw new ConfigError(`Unknown command: ${command ?? "(none)"}`);
  if (email === undefined || !EMAIL.test(email) || email.length > 254 || rest.length > 0)
    throw new ConfigError("Give one email address to invite");
  const role = values.role;
  if (role === undefined || !isOperatorRole(role))
    throw new ConfigError(`--role must be one of ${OPERATOR_ROLES.join(", ")}`);
  return { email, role };
}
