import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { parseEnv, resolveConfig } from "../../../relayer/src/config.js";
import { ConfigError } from "../../../relayer/src/errors.js";
import { ensureDevSecrets, SECRETS_FILE_NAME } from "../../../relayer/src/infra/dev-secrets.js";

const dirs: string[] = [];
function tempDataDir(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "rwa-secrets-"));
  dirs.push(root);
  return path.join(root, "data"); // not created yet: ensureDevSecrets must create it
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const mode = (file: string) => statSync(file).mode & 0o777;

describe("ensureDevSecrets", () => {
  test("generates the requested secrets once, in a 0600 file, and reuses them on the next start", async () => {
    const dataDir = tempDataDir();
    const first = await ensureDevSecrets(dataDir, ["adminToken", "masterKey", "postgresPassword"]);
    assert.equal(first.file, path.join(dataDir, SECRETS_FILE_NAME));
    assert.deepEqual(first.generated, ["adminToken", "masterKey", "postgresPassword"]);
    assert.match(first.secrets.adminToken!, /^ent_admin_[0-9a-f]{64}$/);
    assert.match(first.secrets.masterKey!, /^[0-9a-f]{64}$/);
    assert.equal(mode(first.file), 0o600);
    assert.equal(mode(dataDir) & 0o077 & ~0o011, 0, "DATA_DIR is not readable by others");

    const second = await ensureDevSecrets(dataDir, ["adminToken", "masterKey", "postgresPassword"]);
    assert.deepEqual(second.generated, []);
    assert.deepEqual(second.secrets, first.secrets);

    // The generated values feed the Config.
    const config = resolveConfig(parseEnv({ DATA_DIR: dataDir }), second.secrets);
    assert.equal(config.adminToken, first.secrets.adminToken);
    assert.equal(config.masterKey, first.secrets.masterKey);
  });

  test("adds only what is missing and keeps what is there", async () => {
    const dataDir = tempDataDir();
    const first = await ensureDevSecrets(dataDir, ["masterKey"]);
    assert.equal(first.secrets.adminToken, undefined);
    const second = await ensureDevSecrets(dataDir, ["adminToken", "masterKey"]);
    assert.deepEqual(second.generated, ["adminToken"]);
    assert.equal(second.secrets.masterKey, first.secrets.masterKey);
    assert.equal(mode(second.file), 0o600);
  });

  test("tightens a secrets file readable by others to 0600", async () => {
    const dataDir = tempDataDir();
    const { file } = await ensureDevSecrets(dataDir, ["adminToken"]);
    chmodSync(file, 0o644);
    await ensureDevSecrets(dataDir, ["adminToken"]);
    assert.equal(mode(file), 0o600);
  });

  test("refuses a corrupt secrets file without printing its content", async () => {
    const dataDir = tempDataDir();
    const { file } = await ensureDevSecrets(dataDir, ["adminToken"]);
    writeFileSync(file, JSON.stringify({ masterKey: "not-hex-secret-value" }));
    await assert.rejects(ensureDevSecrets(dataDir, ["masterKey"]), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /masterKey/);
      assert.ok(!error.message.includes("not-hex-secret-value"));
      return true;
    });
    writeFileSync(file, "{");
    await assert.rejects(ensureDevSecrets(dataDir, ["masterKey"]), /not valid JSON/);
    assert.equal(readFileSync(file, "utf8"), "{", "a corrupt file is left for the user to inspect");
  });
});
