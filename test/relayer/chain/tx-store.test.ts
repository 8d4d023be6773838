import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { pino } from "pino";
import { IllegalTransitionError } from "../../../relayer/src/engine/tx-lifecycle.js";
import { TX_CHANNELS } from "../../../relayer/src/engine/tx-channels.js";
import { LeaseLostError, TxStore, type RecordedRow } from "../../../relayer/src/engine/tx-store.js";
import { TxNotifier } from "../../../relayer/src/engine/tx-notifier.js";
import type { HeldWrite } from "../../../relayer/src/engine/unrecorded-writes.js";
import { WalletWakes } from "../../../relayer/src/engine/wallet-wakes.js";
import { createDatabase, type Database } from "../../../relayer/src/db/client.js";
import { runMigrations } from "../../../relayer/src/db/migrate.js";
import { orgs, wallets } from "../../../relayer/src/db/schema/index.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";

describe("transaction store (PostgreSQL)", () => {
  let testDb: TestDatabase;
  let database: Database;
  let store: TxStore;
  const address = "0x" + "11".repeat(20);
  const row = (id: string) => ({
    id,
    orgId: "org_1",
    walletId: "wal_1",
    kind: "issue-asset",
    requestHash: "",
    fromAddress: address,
  });
  /** Records `rows` of `walletId` (org `orgId`) as a write that passes its checks. */
  const recordRows = async (walletId: string, orgId: string, rows: RecordedRow[]) => {
    const wallet = { id: walletId, orgId, address, signerBackend: "local" };
    const verdict = await store.record(
      {
        wallet,
        rows,
        needWei: 0n,
        balance: { value: 0n, block: undefined },
        held: [],
        maxLiveRoots: 1_000,
      },
      undefined,
    );
    assert.deepEqual(verdict, { outcome: "recorded" });
  };
  /** An org `org_<n>` and its wallet `wal_<n>` at `walletAddress`. */
  const addOrg = async (n: number, name: string, walletAddress: string) => {
    await database.db.insert(orgs).values({ id: `org_${n}`, name, scopes: [] });
    await database.db
      .insert(wallets)
      .values({ id: `wal_${n}`, orgId: `org_${n}`, address: walletAddress, encryptedKey: "x" });
  };
  const attempt = (hash: string) => ({
    hash,
    maxFeePerGas: "2",
    maxPriorityFeePerGas: "1",
    sentAt: new Date().toISOString(),
  });
  before(async () => {
    testDb = await createTestDatabase();
    database = createDatabase(testDb.url);
    await runMigrations(database);
    store = new TxStore(database);
    await addOrg(1, "One", address);
  });
  after(async () => {
    await database?.close();
    await testDb?.drop();
    await stopTestServer();
  });

  it("gives a wallet's lease to one process at a time, and to another once it expires", async () => {
    const [a, b] = await Promise.all([
      store.claimWallets("owner-a", ["wal_1"], 60_000),
      store.claimWallets("owner-b", ["wal_1"], 60_000),
    ]);
    assert.equal(a.length + b.length, 1, "exactly one owner holds the lease");
    const holder = a.length === 1 ? "owner-a" : "owner-b";
    const other = holder === "owner-a" ? "owner-b" : "owner-a";
    assert.deepEqual(await store.claimWallets(other, ["wal_1"], 60_000), []);
    assert.deepEqual(await store.renewLeases(holder, ["wal_1"], 1), ["wal_1"]); // expires in 1 ms
    await new Promise((r) => setTimeout(r, 20));
    const taken = await store.claimWallets(other, ["wal_1"], 60_000);
    assert.deepEqual(
      taken.map((w) => w.id),
      ["wal_1"],
    );
    assert.deepEqual(
      await store.renewLeases(holder, ["wal_1"], 60_000),
      [],
      "the old holder lost it",
    );
    await store.releaseLeases(other);
  });

  it("records first attempts with their nonces in one write, and refuses rows that are not queued", async () => {
    const ids = ["tx_a00000000000000000000001", "tx_a00000000000000000000002"];
    await recordRows("wal_1", "org_1", ids.map(row));
    const [held] = await store.claimWallets("owner-a", ["wal_1"], 60_000);
    assert.ok(held, "owner-a leases wal_1");
    const writes = store.leasedBy("owner-a");
    await writes.markSent("wal_1", 7, [
      { id: ids[0]!, nonce: 5, attempt: attempt("0x01") },
      { id: ids[1]!, nonce: 6, attempt: attempt("0x02") },
    ]);
    const sent = await store.get(ids[1]!);
    assert.equal(sent?.state, "sent");
    assert.equal(sent?.nonce, 6);
    assert.deepEqual(
      sent?.attempts.map((a) => a.hash),
      ["0x02"],
    );
    const [wallet] = await database.db.select().from(wallets);
    assert.equal(wallet!.nextNonce, 7n);
    // A sent row cannot be sent again as if it were new: nothing changes.
    await assert.rejects(
      writes.markSent("wal_1", 8, [{ id: ids[0]!, nonce: 7, attempt: attempt("0x03") }]),
      IllegalTransitionError,
    );
    assert.equal((await store.get(ids[0]!))?.nonce, 5);
  });

  it("finalises sent rows once and leaves final rows alone", async () => {
    const writes = store.leasedBy("owner-a");
    const id = "tx_a00000000000000000000001";
    const receipt = {
      hash: "0x01",
      blockNumber: 9,
      blockHash: "0x" + "ab".repeat(32),
      status: 1,
      gasUsed: "1",
      effectiveGasPrice: "1",
    };
    assert.deepEqual(
      await writes.finalise([{ id, status: "confirmed", receipt, result: { tokenId: "1" } }]),
      [id],
    );
    // Already final: a second finalisation (another process, a late block) changes nothing.
    assert.deepEqual(
      await writes.finalise([{ id, status: "failed", reason: "x", errorKind: "revert", receipt }]),
      [],
    );
    assert.equal((await store.get(id))?.state, "confirmed");
    await writes.requeue([{ id, takenBy: "0xother" }]);
    assert.equal(
      (await store.get(id))?.state,
      "confirmed",
      "a final row never goes back to the queue",
    );
  });
  it("rounds of several wallets share one statement, each checked against its own lease", async () => {
    const other = "0x" + "22".repeat(20);
    await addOrg(2, "Two", other);
    await addOrg(3, "Three", "0x" + "33".repeat(20));
    const mine = "tx_b00000000000000000000001";
    const lost = "tx_b00000000000000000000002";
    const third = "tx_b00000000000000000000003";
    await recordRows("wal_2", "org_2", [{ ...row(mine), orgId: "org_2", walletId: "wal_2" }]);
    await recordRows("wal_3", "org_3", [{ ...row(lost), orgId: "org_3", walletId: "wal_3" }]);
    await recordRows("wal_3", "org_3", [{ ...row(third), orgId: "org_3", walletId: "wal_3" }]);
    assert.equal((await store.claimWallets("owner-c", ["wal_2"], 60_000)).length, 1);
    assert.equal((await store.claimWallets("owner-d", ["wal_3"], 60_000)).length, 1);
    const writes = store.leasedBy("owner-c");
    const before = database.statements();
    const [ok, refused] = await Promise.allSettled([
      writes.markSent("wal_2", 1, [{ id: mine, nonce: 0, attempt: attempt("0xb1") }]),
      writes.markSent("wal_3", 1, [{ id: lost, nonce: 0, attempt: attempt("0xb2") }]),
    ]);
    assert.equal(database.statements() - before, 1, "both rounds in one statement");
    assert.equal(ok.status, "fulfilled");
    assert.ok(refused.status === "rejected" && refused.reason instanceof LeaseLostError);
    assert.equal((await store.get(mine))?.state, "sent");
    assert.equal((await store.get(lost))?.state, "queued", "the wallet owner-c does not hold");
    // A round with a row that is not queued fails alone; its neighbour in the statement is sent.
    await store.releaseLeases("owner-d");
    assert.equal((await store.claimWallets("owner-c", ["wal_3"], 60_000)).length, 1);
    const [bad, good] = await Promise.allSettled([
      writes.markSent("wal_2", 2, [{ id: mine, nonce: 1, attempt: attempt("0xb3") }]),
      writes.markSent("wal_3", 1, [{ id: lost, nonce: 0, attempt: attempt("0xb4") }]),
    ]);
    assert.ok((bad as PromiseRejectedResult).reason instanceof IllegalTransitionError);
    assert.equal(good.status, "fulfilled");
    assert.equal((await store.get(lost))?.nonce, 0);
    assert.equal((await store.get(third))?.state, "queued", "rows not in the round are untouched");
  });
  it("records a write only if its checks pass, the writes of one turn in one statement", async () => {
    const nine = "0x" + "99".repeat(20);
    await addOrg(9, "Nine", nine);
    const wallet = { id: "wal_9", orgId: "org_9", address: nine, signerBackend: "local" };
    const write = (id: string, needWei: bigint, value: string, held: HeldWrite[] = []) =>
      store.record(
        {
          wallet,
          rows: [{ ...row(id), orgId: "org_9", walletId: "wal_9", value, gasLimit: "0" }],
          needWei,
          balance: { value: 100n, block: undefined },
          held,
          maxLiveRoots: 3,
        },
        undefined,
      );
    const ids = Array.from({ length: 5 }, (_, i) => `tx_c0000000000000000000000${i}`);
    const statements = database.statements();
    // Each write of the turn counts the ones held before it (as UnrecordedWrites hands them).
    const verdicts = await Promise.all([
      write(ids[0]!, 40n, "40"),
      write(ids[1]!, 40n, "40", [{ id: ids[0]!, wei: 40n }]),
      write(ids[2]!, 40n, "40", [
        { id: ids[0]!, wei: 40n },
        { id: ids[1]!, wei: 40n },
      ]),
    ]);
    assert.equal(database.statements() - statements, 1, "one statement for the turn");
    assert.deepEqual(verdicts[0], { outcome: "recorded" });
    assert.deepEqual(verdicts[1], { outcome: "recorded" });
    assert.deepEqual(verdicts[2], { outcome: "short", liveRoots: 2, reservedWei: 80n });
    assert.equal(await store.get(ids[2]!), undefined, "a refused write is not recorded");
    // Recorded now: two live writes that reserve 80 of the 100. A held write whose rows the
    // statement sees counts once.
    assert.deepEqual(await write(ids[3]!, 30n, "30", [{ id: ids[0]!, wei: 40n }]), {
      outcome: "short",
      liveRoots: 2,
      reservedWei: 80n,
    });
    assert.deepEqual(await write(ids[3]!, 20n, "20"), { outcome: "recorded" });
    assert.deepEqual(await write(ids[4]!, 0n, "0"), {
      outcome: "queue-full",
      liveRoots: 3,
      reservedWei: 100n,
    });
    assert.equal(await store.get(ids[4]!), undefined);
    assert.equal((await store.get(ids[3]!))?.value, "20");
  });

  it("recording wakes no process; the wallets woken within the linger share one NOTIFY", async () => {
    await addOrg(8, "Eight", "0x" + "88".repeat(20));
    const raw: string[] = [];
    const listener = new pg.Client({ connectionString: testDb.url });
    await listener.connect();
    listener.on("notification", (m) => raw.push(m.payload ?? ""));
    await listener.query(`LISTEN ${TX_CHANNELS.queued}`);
    const notifier = new TxNotifier(testDb.url, pino({ level: "silent" }));
    const woken: string[] = [];
    notifier.on("queued", (walletId) => woken.push(walletId));
    await notifier.start();
    try {
      await recordRows("wal_8", "org_8", [
        { ...row("tx_e00000000000000000000001"), orgId: "org_8", walletId: "wal_8" },
      ]);
      const wakes = new WalletWakes(database);
      const statements = database.statements();
      await Promise.all([wakes.send("wal_8"), wakes.send("wal_1"), wakes.send("wal_8")]);
      assert.equal(database.statements() - statements, 1, "one statement for the three");
      const deadline = Date.now() + 5_000;
      while (woken.length < 2 && Date.now() < deadline) await sleep(20);
      await sleep(100);
      // Notifications arrive in commit order: the record's would have come first.
      assert.deepEqual(raw, ["wal_8,wal_1"]);
      assert.deepEqual(woken, ["wal_8", "wal_1"]);
    } finally {
      await notifier.stop();
      await listener.end();
    }
  });

  it("gives back an idle wallet's lease, not one whose write committed meanwhile", async () => {
    await addOrg(7, "Seven", "0x" + "77".repeat(20));
    await addOrg(6, "Six", "0x" + "66".repeat(20));
    const claimed = await store.claimWallets("owner-i", ["wal_7", "wal_6"], 60_000);
    assert.equal(claimed.length, 2);
    // wal_7 got a write after its holder found it idle; wal_6 has none.
    await recordRows("wal_7", "org_7", [
      { ...row("tx_idle_7"), orgId: "org_7", walletId: "wal_7" },
    ]);
    assert.deepEqual(await store.releaseIdleLeases("owner-i", ["wal_7", "wal_6"]), ["wal_6"]);
    const owners = await database.pool.query<{ id: string; lease_owner: string | null }>(
      "SELECT id, lease_owner FROM wallets WHERE id IN ('wal_6', 'wal_7') ORDER BY id",
    );
    assert.deepEqual(
      owners.rows.map((r) => [r.id, r.lease_owner]),
      [
        ["wal_6", null],
        ["wal_7", "owner-i"],
      ],
    );
    // Another owner's lease is never given back by this one.
    assert.deepEqual(await store.releaseIdleLeases("owner-x", ["wal_7"]), []);
    await store.releaseLeases("owner-i");
  });

  it("a process that lost the wallet's lease changes none of its rows", async () => {
    const id = "tx_a00000000000000000000009";
    await recordRows("wal_1", "org_1", [row(id)]);
    await store.releaseLeases("owner-a");
    assert.equal((await store.claimWallets("owner-b", ["wal_1"], 60_000)).length, 1);
    const stale = store.leasedBy("owner-a");
    await assert.rejects(
      stale.markSent("wal_1", 10, [{ id, nonce: 9, attempt: attempt("0x09") }]),
      LeaseLostError,
    );
    await assert.rejects(stale.setNextNonce("wal_1", 3), LeaseLostError);
    assert.equal((await store.get(id))?.state, "queued", "nothing was sent");
    await store
      .leasedBy("owner-b")
      .markSent("wal_1", 10, [{ id, nonce: 9, attempt: attempt("0x09") }]);
    assert.deepEqual(await stale.requeue([{ id, takenBy: "0xother" }]), []);
    assert.equal((await store.get(id))?.state, "sent", "the stale owner could not re-queue it");
    assert.deepEqual(await stale.failUnsent([{ id, reason: "x", errorKind: "rejected" }]), []);
    const requeued = await store.leasedBy("owner-b").requeue([{ id, takenBy: "0xother" }]);
    assert.deepEqual(requeued, [id]);
    const after = await store.get(id);
    assert.equal(after?.state, "queued");
    assert.deepEqual(
      after?.attempts.map((a) => [a.hash, a.superseded]),
      [["0x09", "0xother"]],
      "the attempt is kept, marked superseded",
    );
    await store.releaseLeases("owner-b");
  });
});
