// Result bytes in a Uint8Array of their own. Small Buffers share Node's pool, which must never be handed on:
// a worker transferring a result's ArrayBuffer would take the whole pool with it.

/** The chunks joined into one fresh Uint8Array. */
export function joinBytes(chunks: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const c of chunks) size += c.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
