// A separate process sharing DATA_DIR with a test: creates keys, records usage and revokes one, as a second
// replica without Redis would. Prints the created keys' ids and secrets as JSON.
import { createFileKeyStore } from '../../tools/core/keys.ts';

const [dataDir, label, count] = process.argv.slice(2);
const store = createFileKeyStore(dataDir, { flushMs: 5 });
const made = await Promise.all(Array.from({ length: Number(count) }, (_, i) => store.create(`${label}-${i}`, i)));
for (const { key } of made) for (let i = 0; i < 3; i++) store.recordRun(key.id);
await store.revoke(made[0].key.id);
await store.close();
console.log(JSON.stringify(made.map(({ key, secret }) => ({ id: key.id, secret }))));
