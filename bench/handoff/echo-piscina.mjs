// The echo job (echo-job.mjs) in a piscina worker thread, moved back as the job workers moved results until
// issue 13: the buffer is transferred, not copied, when it is a whole one.
import { Piscina } from 'piscina';

export default function echo(job) {
  const bytes = job.files[0].bytes;
  const reply = { ok: true, result: { files: [{ name: 'eco.bin', contentType: 'application/octet-stream', bytes }], preview: null, textPreview: null, messages: [] } };
  if (bytes.byteLength < 65536 || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) return reply;
  return Piscina.move({ [Piscina.transferableSymbol]: [bytes.buffer], [Piscina.valueSymbol]: reply });
}
