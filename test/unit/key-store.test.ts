import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import {
  AesGcmKeyStore,
  envelopeKeyId,
  KeyStoreError,
  masterKeyId,
} from "../../relayer/src/wallets/key-store.js";

const oldKey = randomBytes(32).toString("hex");
const newKey = randomBytes(32).toString("hex");

describe("AesGcmKeyStore during a master-key rotation", () => {
  test("seal uses the current key and records its id in the envelope", () => {
    const store = new AesGcmKeyStore(newKey, oldKey);
    const envelope = store.seal("secret", "wal_1");
    assert.equal(envelopeKeyId(envelope), masterKeyId(newKey));
    assert.equal(store.keyId, masterKeyId(newKey));
    assert.equal(store.previousKeyId, masterKeyId(oldKey));
  });

  test("open accepts envelopes under either key while the previous key is held", () => {
    const underOld = new AesGcmKeyStore(oldKey).seal("old secret", "wal_1");
    const store = new AesGcmKeyStore(newKey, oldKey);
    assert.equal(store.open(underOld, "wal_1"), "old secret");
    assert.equal(store.open(store.seal("new secret", "wal_2"), "wal_2"), "new secret");
  });

  test("open refuses the previous key's envelopes once the previous key is forgotten", () => {
    const underOld = new AesGcmKeyStore(oldKey).seal("old secret", "wal_1");
    const store = new AesGcmKeyStore(newKey, oldKey);
    store.forgetPreviousKey();
    assert.equal(store.previousKeyId, undefined);
    assert.throws(
      () => store.open(underOld, "wal_1"),
      (error: unknown) =>
        error instanceof KeyStoreError &&
        error.message.startsWith(
          `Envelope was sealed under a different master key (key id ${masterKeyId(oldKey)}`,
        ),
    );
  });

  test("an envelope under the old key does not open with only the new key", () => {
    const underNew = new AesGcmKeyStore(newKey).seal("s", "wh_1");
    assert.throws(
      () => new AesGcmKeyStore(oldKey).open(underNew, "wh_1"),
      /Envelope was sealed under a different master key/,
    );
  });

  test("a tampered envelope under the previous key fails authentication", () => {
    const underOld = new AesGcmKeyStore(oldKey).seal("old secret", "wal_1");
    const store = new AesGcmKeyStore(newKey, oldKey);
    assert.throws(() => store.open(underOld, "wal_other"), /Envelope failed authentication/);
  });

  test("the previous key must differ from the current one", () => {
    assert.throws(
      () => new AesGcmKeyStore(newKey, newKey.toUpperCase()),
      /MASTER_KEY_PREVIOUS must differ from MASTER_KEY/,
    );
    assert.throws(() => new AesGcmKeyStore(newKey, "abc"), /MASTER_KEY_PREVIOUS must be 64 hex/);
  });

  test("envelopeKeyId reads no key and ignores PKCS#11 URIs", () => {
    assert.equal(envelopeKeyId("pkcs11:token=rwa;object=wal_1;type=private"), undefined);
    assert.equal(envelopeKeyId("v1:abcd:x:y:z"), "abcd");
  });
});
