// The job module of the front-door measurement (front-door.ts): it answers every job with a result computed
// once beforehand, so a load against that server measures what the service does around a run (HTTP,
// multipart, checks, quota, the hand-off to a job process and back, the answer) and nothing of the run itself.
import { readFileSync } from 'node:fs';

const canned = JSON.parse(readFileSync(`${process.env.CANNED_RESULT}.json`, 'utf8'));
const bytes = readFileSync(`${process.env.CANNED_RESULT}.bin`);

export default function runJob(job) {
  return { ok: true, result: { ...canned, files: canned.files.map((f) => ({ ...f, bytes: new Uint8Array(bytes) })) } };
}
