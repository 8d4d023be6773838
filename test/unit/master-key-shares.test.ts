import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  combineMasterKey,
  masterKeyCommand,
  parseShare,
  splitMasterKey,
} from "../../relayer/src/infra/master-key-shares.js";
import { masterKeyId } from "../../relayer/src/wallets/key-store.js";

const key = randomBytes(32).toString("hex");

/** Runs the command as `npm run master-key` would, capturing its output. */
async function run(argv: string[], env: NodeJS.ProcessEnv = {}, stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await masterKeyCommand({
    argv,
    env,
    readStdin: () => Promise.resolve(stdin),
    print: (line) => out.push(line),
    printError: (line) => err.push(line),
  });
  return { code, out, err: err.join("\n") };
}

describe("master key shares (Shamir, npm run master-key)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-mks-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("any 3 of 5 shares rebuild the key; 2 do not, and say how many more", async () => {
    const shares = await splitMasterKey(key, 5, 3);
    assert.equal(shares.length, 5);
    assert.equal(new Set(shares).size, 5);
    for (const share of shares) assert.ok(!share.includes(key), "no share holds the key");
    for (const pick of [
      [0, 1, 2],
      [0, 3, 4],
      [4, 2, 1],
      [0, 1, 2, 3, 4],
    ]) {
      assert.equal(await combineMasterKey(pick.map((i) => shares[i]!)), key);
    }
    await assert.rejects(
      combineMasterKey([shares[0]!, shares[3]!]),
      /2 of the 3 shares needed \(3of5\): give 1 more/,
    );
  });

  it("refuses a mistyped share, a share of another key or split, and the same share twice", async () => {
    const shares = await splitMasterKey(key, 3, 2);
    const other = await splitMasterKey(randomBytes(32).toString("hex"), 3, 2);
    const resplit = await splitMasterKey(key, 4, 2);
    const s0 = shares[0]!;
    // One character changed in the share's body.
    const i = s0.lastIndexOf("-") - 3;
    const typo = s0.slice(0, i) + (s0[i] === "A" ? "B" : "A") + s0.slice(i + 1);
    await assert.rejects(combineMasterKey([typo, shares[1]!]), /share 1 fails its check/);
    await assert.rejects(
      combineMasterKey([s0, other[1]!]),
      /share 2 belongs to another master key/,
    );
    await assert.rejects(
      combineMasterKey([s0, resplit[1]!]),
      /share 2 is from another split \(2of4\)/,
    );
    await assert.rejects(combineMasterKey([s0, s0]), /The same share was given twice/);
    await assert.rejects(combineMasterKey(["hello", s0]), /share 1 is not a master-key share/);
    await assert.rejects(combineMasterKey([]), /No shares given/);
  });

  it("a share names the key it belongs to by the key store's fingerprint", async () => {
    const [share] = await splitMasterKey(key, 2, 2);
    const parsed = parseShare(share!, "share");
    assert.equal(parsed.keyId, masterKeyId(key));
    assert.deepEqual([parsed.threshold, parsed.shares], [2, 2]);
  });

  it("split prints MASTER_KEY's shares; combine reads them from standard input and writes the key only where told", async () => {
    const split = await run(["split", "--shares", "5", "--threshold", "3"], { MASTER_KEY: key });
    assert.equal(split.code, 0, split.err);
    assert.equal(split.out.length, 5);
    assert.match(split.err, /any 3 rebuild it/);
    assert.ok(!split.err.includes(key));

    const printed = await run(
      ["combine"],
      {},
      `# keeper 2\n${split.out[1]}\n\n${split.out[4]}\r\n${split.out[0]}\n`,
    );
    assert.equal(printed.code, 0, printed.err);
    assert.deepEqual(printed.out, [key]);

    const file = path.join(dir, "master.key");
    const written = await run([
      "combine",
      "--out",
      file,
      "--share",
      split.out[2]!,
      "--share",
      split.out[3]!,
      "--share",
      split.out[0]!,
    ]);
    assert.equal(written.code, 0, written.err);
    assert.deepEqual(written.out, [], "nothing printed when written to a file");
    assert.equal(readFileSync(file, "utf8"), `${key}\n`);
    assert.equal(statSync(file).mode & 0o777, 0o600);

    const again = await run([
      "combine",
      "--out",
      file,
      "--share",
      split.out[2]!,
      "--share",
      split.out[3]!,
      "--share",
      split.out[0]!,
    ]);
    assert.equal(again.code, 1);
    assert.match(again.err, /exists: not written over/);
  });

  it("in development, splits the key of DATA_DIR/secrets.json", async () => {
    const dataDir = path.join(dir, "data");
    const devKey = randomBytes(32).toString("hex");
    await run(["split", "--shares", "2", "--threshold", "2"], { DATA_DIR: dataDir }).then((r) => {
      assert.equal(r.code, 1);
      assert.match(r.err, /Missing MASTER_KEY, and no development key in .*secrets\.json/);
    });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, "secrets.json"), JSON.stringify({ masterKey: devKey }));
    const split = await run(["split", "--shares", "2", "--threshold", "2"], { DATA_DIR: dataDir });
    assert.equal(split.code, 0, split.err);
    assert.equal(await combineMasterKey(split.out), devKey);
  });

  it("answers bad arguments with the rule broken", async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [[], 2, /usage: npm run master-key/],
      [["split", "--shares", "5"], 1, /Missing --threshold/],
      [
        ["split", "--shares", "1", "--threshold", "1"],
        1,
        /--shares must be a whole number from 2 to 255/,
      ],
      [["split", "--shares", "3", "--threshold", "4"], 1, /--threshold cannot exceed --shares/],
      [["split", "--shares", "x", "--threshold", "2"], 1, /--shares must be a whole number/],
      [["split", "--bogus"], 2, /Unknown option '--bogus'/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await run(argv, { MASTER_KEY: key });
      assert.equal(result.code, code, `${argv.join(" ")}: ${result.err}`);
      assert.match(result.err, message);
      assert.ok(!result.err.includes(key));
    }
  });
});
