// The job of the hand-off measurement (bench/handoff.ts) in the job processes: its result is its input, as
// it came, so that a run costs the hand-off there and back and nothing else.
export default function echo(job) {
  const bytes = job.files[0].bytes;
  return { ok: true, result: { files: [{ name: 'eco.bin', contentType: 'application/octet-stream', bytes }], preview: null, textPreview: null, messages: [] } };
}
