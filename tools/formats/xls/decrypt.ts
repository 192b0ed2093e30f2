// Workbooks encrypted with Excel's default password ([MS-XLS] 2.2.10, [MS-OFFCRYPTO] 2.3.5–2.3.7).
//
// Excel encrypts an .xls whose structure is protected (and LibreOffice does the same) with the password
// "VelvetSweatshop", and opens it without asking: such a file is read here as Excel reads it. A FILEPASS record
// whose verifier does not match that password is a workbook that really needs one: refused (`password`).
//
// Record headers are never encrypted, nor the records listed in PLAIN, nor the first 4 bytes of BOUNDSHEET8
// (the sheet's stream offset); everything after FILEPASS is. The three schemes:
// - RC4 (FILEPASS version 1.1): key MD5(MD5(password)[0..5] + salt, 16 times)[0..5] + block number, hashed again;
// - RC4 CryptoAPI (versions 2.2, 3.2, 4.2): key SHA-1(SHA-1(salt + password) + block number), cut to the key size
//   (a 40-bit key padded with zeros to 128 bits, as Excel does);
// - XOR obfuscation (BIFF5, and BIFF8 type 0): a 16-byte array derived from the password, the byte at stream
//   offset q of a record of n payload bytes taking element (q + n) mod 16, then rotated right by 5 bits.
// Both RC4 schemes run the key stream by stream offset, re-keyed every 1,024 bytes, header bytes included.
//
// The decrypted stream keeps every byte where it was (offsets in BOUNDSHEET8, INDEX and DBCELL stay true); the
// FILEPASS record becomes one every reader skips, of the same length.
import { createHash } from 'node:crypto';
import { NeedsFallback, passwordProtected } from '../errors.ts';
import { u16, u32 } from './biff-text.ts';
import { biffStream } from './cfb.ts';
import { compoundFile } from './cfb-write.ts';

export const DEFAULT_PASSWORD = 'VelvetSweatshop';

const BOF_TYPES = new Set([0x0009, 0x0209, 0x0409, 0x0809]);
const EOF = 0x000a;
const FILEPASS = 0x002f;
const BOUNDSHEET = 0x0085;
/** BOF, FILEPASS, USREXCL, FILELOCK, INTERFACEHDR, RRDINFO, RRDHEAD: never encrypted. */
const PLAIN = new Set([0x0809, 0x0009, 0x0209, 0x0409, FILEPASS, 0x0194, 0x0195, 0x00e1, 0x0196, 0x0138]);
/** What FILEPASS becomes: PLS (printer settings), which every reader skips (SheetJS warns of unknown ids). */
const BLANKED = 0x004d;
const BLOCK = 1024;


/** Where the FILEPASS record of the globals starts, or -1 (a workbook not encrypted). */
export function filePassAt(s: Uint8Array): number {
  if (s.length < 4 || !BOF_TYPES.has(u16(s, 0))) return -1;
  for (let p = 0; p + 4 <= s.length; ) {
    const type = u16(s, p);
    if (type === FILEPASS) return p;
    if (type === EOF) return -1;
    p += 4 + u16(s, p + 2);
  }
  return -1;
}

/**
 * The stream decrypted with the default password, or null when it is not encrypted. Throws `password` when it
 * was encrypted with another password, or by a scheme Excel never uses without one.
 */
export function decryptStream(s: Uint8Array): Uint8Array | null {
  const at = filePassAt(s);
  if (at < 0) return null;
  const len = u16(s, at + 2);
  if (at + 4 + len > s.length) throw passwordProtected('FILEPASS past the end of the stream');
  const payload = s.subarray(at + 4, at + 4 + len);
  const biff8 = u16(s, 0) === 0x0809 && len >= 2 && u16(s, 4) >= 0x0600;
  const cipher = biff8 ? cipherOf(payload) : xorCipher(payload, 0);
  const out = new Uint8Array(s);
  out[at] = BLANKED & 0xff;
  out[at + 1] = BLANKED >> 8;
  out.fill(0, at + 4, at + 4 + len);
  for (let p = at + 4 + len; p + 4 <= out.length; ) {
    const type = u16(out, p);
    const n = u16(out, p + 2);
    const start = p + 4;
    const end = Math.min(start + n, out.length);
    if (!PLAIN.has(type)) cipher(out, type === BOUNDSHEET ? Math.min(start + 4, end) : start, end, n);
    p = start + n;
  }
  return out;
}

/** Decrypts `b[from..to)`, bytes of a record of `n` payload bytes, in place. */
type Cipher = (b: Uint8Array, from: number, to: number, n: number) => void;

function cipherOf(f: Uint8Array): Cipher {
  const type = u16(f, 0);
  if (type === 0) return xorCipher(f, 2);
  if (type !== 1 || f.length < 6) throw passwordProtected(`FILEPASS encryption type ${type}`);
  const major = u16(f, 2);
  const minor = u16(f, 4);
  if (major === 1 && minor === 1) return rc4Cipher(f.subarray(6));
  if ((major === 2 || major === 3 || major === 4) && minor === 2) return cryptoApiCipher(f.subarray(6));
  throw passwordProtected(`FILEPASS RC4 version ${major}.${minor}`);
}

const md5 = (...parts: Uint8Array[]) => hash('md5', parts);
const sha1 = (...parts: Uint8Array[]) => hash('sha1', parts);
function hash(name: string, parts: Uint8Array[]): Uint8Array {
  const h = createHash(name);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}
const le32 = (n: number) => new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]);
const utf16 = (s: string) => new Uint8Array(Buffer.from(s, 'utf16le'));
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** RC4 ([MS-OFFCRYPTO] uses it as is): Node's OpenSSL no longer offers it. */
class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;
  constructor(key: Uint8Array) {
    const s = this.s;
    for (let i = 0; i < 256; i++) s[i] = i;
    for (let i = 0, j = 0; i < 256; i++) {
      j = (j + s[i] + key[i % key.length]) & 0xff;
      const t = s[i];
      s[i] = s[j];
      s[j] = t;
    }
  }
  next(): number {
    const s = this.s;
    this.i = (this.i + 1) & 0xff;
    this.j = (this.j + s[this.i]) & 0xff;
    const t = s[this.i];
    s[this.i] = s[this.j];
    s[this.j] = t;
    return s[(s[this.i] + s[this.j]) & 0xff];
  }
  apply(b: Uint8Array): Uint8Array {
    const out = new Uint8Array(b.length);
    for (let k = 0; k < b.length; k++) out[k] = b[k] ^ this.next();
    return out;
  }
}

/**
 * Both RC4 schemes: the key stream of block `floor(q / 1024)` at offset `q mod 1024` for the byte at stream
 * offset q. Records come in stream order, so each block's key stream is made once, when first needed.
 */
function blockCipher(keyOf: (block: number) => Uint8Array): Cipher {
  let block = -1;
  const stream = new Uint8Array(BLOCK);
  return (b, from, to) => {
    for (let q = from; q < to; q++) {
      const k = Math.floor(q / BLOCK);
      if (k !== block) {
        block = k;
        const rc4 = new Rc4(keyOf(k));
        for (let i = 0; i < BLOCK; i++) stream[i] = rc4.next();
      }
      b[q] ^= stream[q % BLOCK];
    }
  };
}

/** RC4 Encryption Header ([MS-OFFCRYPTO] 2.3.6.1): salt, encrypted verifier, its encrypted MD5. */
function rc4Cipher(h: Uint8Array): Cipher {
  if (h.length < 48) throw passwordProtected('RC4 FILEPASS too short');
  const salt = h.subarray(0, 16);
  const h0 = md5(utf16(DEFAULT_PASSWORD)).subarray(0, 5);
  const joined = new Uint8Array(21 * 16);
  for (let i = 0; i < 16; i++) {
    joined.set(h0, i * 21);
    joined.set(salt, i * 21 + 5);
  }
  const truncated = md5(joined).subarray(0, 5);
  const keyOf = (block: number) => md5(truncated, le32(block));
  const rc4 = new Rc4(keyOf(0));
  const verifier = rc4.apply(h.subarray(16, 32));
  if (!same(md5(verifier), rc4.apply(h.subarray(32, 48)))) throw passwordProtected('RC4: not the default password');
  return blockCipher(keyOf);
}

/** RC4 CryptoAPI Encryption Header ([MS-OFFCRYPTO] 2.3.5.1): flags, header (key size), verifier. */
function cryptoApiCipher(h: Uint8Array): Cipher {
  if (h.length < 8) throw passwordProtected('RC4 CryptoAPI FILEPASS too short');
  const headerSize = u32(h, 4);
  const header = 8;
  const verifier = header + headerSize;
  if (headerSize < 32 || verifier + 4 + 16 + 16 + 4 + 20 > h.length) throw passwordProtected('RC4 CryptoAPI FILEPASS too short');
  const bits = u32(h, header + 16) || 40;
  if (bits % 8 !== 0 || bits < 40 || bits > 128) throw passwordProtected(`RC4 CryptoAPI key of ${bits} bits`);
  const saltSize = u32(h, verifier);
  if (saltSize !== 16) throw passwordProtected('RC4 CryptoAPI salt size');
  const salt = h.subarray(verifier + 4, verifier + 20);
  const h0 = sha1(salt, utf16(DEFAULT_PASSWORD));
  const keyOf = (block: number) => {
    const key = sha1(h0, le32(block)).subarray(0, bits / 8);
    if (bits !== 40) return key;
    const padded = new Uint8Array(16);
    padded.set(key);
    return padded;
  };
  const rc4 = new Rc4(keyOf(0));
  const plain = rc4.apply(h.subarray(verifier + 20, verifier + 36));
  const hashSize = u32(h, verifier + 36);
  const encHash = h.subarray(verifier + 40, verifier + 40 + Math.min(20, hashSize));
  if (hashSize < 20 || !same(sha1(plain), rc4.apply(encHash))) throw passwordProtected('RC4 CryptoAPI: not the default password');
  return blockCipher(keyOf);
}

// XOR obfuscation, method 1 ([MS-OFFCRYPTO] 2.3.7.1–2.3.7.4).
const PAD = [0xbb, 0xff, 0xff, 0xba, 0xff, 0xff, 0xb9, 0x80, 0x00, 0xbe, 0x0f, 0x00, 0xbf, 0x0f, 0x00];
const INITIAL_CODE = [0xe1f0, 0x1d0f, 0xcc9c, 0x84c0, 0x110c, 0x0e10, 0xf1ce, 0x313e, 0x1872, 0xe139, 0xd40f, 0x84f9, 0x280c, 0xa96a, 0x4ec3];
const XOR_MATRIX = [
  0xaefc, 0x4dd9, 0x9bb2, 0x2745, 0x4e8a, 0x9d14, 0x2a09, 0x7b61, 0xf6c2, 0xfda5, 0xeb6b, 0xc6f7, 0x9dcf, 0x2bbf, 0x4563, 0x8ac6, 0x05ad, 0x0b5a, 0x16b4, 0x2d68, 0x5ad0, 0x0375, 0x06ea, 0x0dd4,
  0x1ba8, 0x3750, 0x6ea0, 0xdd40, 0xd849, 0xa0b3, 0x5147, 0xa28e, 0x553d, 0xaa7a, 0x44d5, 0x6f45, 0xde8a, 0xad35, 0x4a4b, 0x9496, 0x390d, 0x721a, 0xeb23, 0xc667, 0x9cef, 0x29ff, 0x53fe, 0xa7fc,
  0x5fd9, 0x47d3, 0x8fa6, 0x0f6d, 0x1eda, 0x3db4, 0x7b68, 0xf6d0, 0xb861, 0x60e3, 0xc1c6, 0x93ad, 0x377b, 0x6ef6, 0xddec, 0x45a0, 0x8b40, 0x06a1, 0x0d42, 0x1a84, 0x3508, 0x6a10, 0xaa51, 0x4483,
  0x8906, 0x022d, 0x045a, 0x08b4, 0x1168, 0x76b4, 0xed68, 0xcaf1, 0x85c3, 0x1ba7, 0x374e, 0x6e9c, 0x3730, 0x6e60, 0xdcc0, 0xa9a1, 0x4363, 0x86c6, 0x1dad, 0x3331, 0x6662, 0xccc4, 0x89a9, 0x0373,
  0x06e6, 0x0dcc, 0x1021, 0x2042, 0x4084, 0x8108, 0x1231, 0x2462, 0x48c4,
];

/** The password's 16-bit verifier, as FILEPASS stores it. */
export function xorVerifier(password: Uint8Array): number {
  let v = 0;
  const bytes = [password.length, ...password];
  for (let i = bytes.length - 1; i >= 0; i--) v = ((((v & 0x4000) >> 14) | ((v << 1) & 0x7fff)) ^ bytes[i]) & 0xffff;
  return v ^ 0xce4b;
}

function xorKey(password: Uint8Array): number {
  let key = INITIAL_CODE[password.length - 1];
  let element = 0x68;
  for (let i = password.length - 1; i >= 0; i--) {
    let c = password[i];
    for (let j = 0; j < 7; j++, c <<= 1, element--) if (c & 0x40) key ^= XOR_MATRIX[element];
  }
  return key;
}

/** The 16-byte obfuscation array of a password of 1–15 bytes. */
export function xorArray(password: Uint8Array): Uint8Array {
  const key = xorKey(password);
  const hi = key >> 8;
  const lo = key & 0xff;
  const ror = (a: number, b: number) => {
    const x = a ^ b;
    return ((x >> 1) | (x << 7)) & 0xff;
  };
  const out = new Uint8Array(16);
  let i = password.length;
  if (i & 1) {
    out[i] = ror(PAD[0], hi);
    i--;
    out[i] = ror(password[password.length - 1], lo);
  }
  while (i > 0) {
    i--;
    out[i] = ror(password[i], hi);
    i--;
    out[i] = ror(password[i], lo);
  }
  i = 15;
  for (let pad = 15 - password.length; pad > 0; ) {
    out[i--] = ror(PAD[pad--], hi);
    out[i--] = ror(PAD[pad--] ?? 0, lo);
  }
  return out;
}

/** XOR obfuscation: key and verifier at `at` in FILEPASS. */
function xorCipher(f: Uint8Array, at: number): Cipher {
  if (f.length < at + 4) throw passwordProtected('XOR FILEPASS too short');
  const password = new Uint8Array(Buffer.from(DEFAULT_PASSWORD, 'latin1'));
  if (u16(f, at) !== xorKey(password) || u16(f, at + 2) !== xorVerifier(password)) throw passwordProtected('XOR: not the default password');
  const array = xorArray(password);
  return (b, from, to, n) => {
    for (let q = from; q < to; q++) {
      const x = b[q] ^ array[(q + n) & 15];
      b[q] = ((x >> 5) | (x << 3)) & 0xff;
    }
  };
}

/**
 * An .xls encrypted with the default password as a compound file holding its decrypted stream alone, for
 * SheetJS (which decrypts none of these schemes); any other file as it is. A container cfb.ts does not read is
 * left to SheetJS too.
 */
export function decryptedFile(bytes: Uint8Array): Uint8Array {
  let stream: Uint8Array;
  try {
    stream = biffStream(bytes);
  } catch (err) {
    if (err instanceof NeedsFallback) return bytes;
    throw err;
  }
  const plain = decryptStream(stream);
  return plain === null ? bytes : compoundFile([plain], plain.length);
}
