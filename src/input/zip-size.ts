import { type FileHandle, open } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

/** The End of Central Directory record (22 bytes plus a comment of up to 65,535, at the very end). */
async function endRecord(fh: FileHandle): Promise<{ size: number; tail: Buffer; eocd: number } | undefined> {
  const { size } = await fh.stat();
  const tailLength = Math.min(size, 22 + 65_535);
  const tail = Buffer.alloc(tailLength);
  await fh.read(tail, 0, tailLength, size - tailLength);
  for (let i = tailLength - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === 0x06054b50) return { size, tail, eocd: i };
  return undefined;
}

/**
 * The total unpacked size of a zip file's entries as its central directory declares it, read
 * from the end of the file (End of Central Directory record, then the directory itself) without
 * unpacking anything: an XLSX of 453 KB can hold 450 MB of XML (a zip bomb). A ZIP64 size
 * (0xFFFFFFFF in the 32-bit field) is read from the entry's ZIP64 extra field. Returns undefined
 * when the file is not a zip (no EOCD record): the XLSX reader then says so.
 */
export async function zipUnpackedSize(file: string): Promise<number | undefined> {
  const fh = await open(file, 'r');
  try {
    const end = await endRecord(fh);
    if (end === undefined) return undefined;
    const { size, tail, eocd } = end;
    let entries = tail.readUInt16LE(eocd + 10);
    let dirSize = tail.readUInt32LE(eocd + 12);
    let dirOffset = tail.readUInt32LE(eocd + 16);
    if (entries === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      // ZIP64: the locator, 20 bytes before the EOCD, points at the ZIP64 EOCD record.
      const locator = eocd - 20;
      if (locator < 0 || tail.readUInt32LE(locator) !== 0x07064b50) return Number.POSITIVE_INFINITY;
      const at = Number(tail.readBigUInt64LE(locator + 8));
      const rec = Buffer.alloc(56);
      await fh.read(rec, 0, 56, at);
      if (rec.readUInt32LE(0) !== 0x06064b50) return Number.POSITIVE_INFINITY;
      entries = Number(rec.readBigUInt64LE(32));
      dirSize = Number(rec.readBigUInt64LE(40));
      dirOffset = Number(rec.readBigUInt64LE(48));
    }
    if (dirOffset + dirSize > size) return Number.POSITIVE_INFINITY; // a directory beyond the file
    const dir = Buffer.alloc(dirSize);
    await fh.read(dir, 0, dirSize, dirOffset);
    return sumEntries(dir, entries);
  } finally {
    await fh.close();
  }
}

/** Sums the declared unpacked sizes of the central directory's entries. */
function sumEntries(dir: Buffer, entries: number): number {
  let total = 0;
  let p = 0;
  for (let n = 0; n < entries; n++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== 0x02014b50) return Number.POSITIVE_INFINITY;
    let unpacked = dir.readUInt32LE(p + 24);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    if (unpacked === 0xffffffff) unpacked = zip64Size(dir, p + 46 + nameLength, extraLength);
    total += unpacked;
    p += 46 + nameLength + extraLength + commentLength;
  }
  return total;
}

/** The unpacked size from an entry's ZIP64 extra field (id 0x0001; it comes first there). */
function zip64Size(dir: Buffer, from: number, length: number): number {
  for (let q = from; q + 4 <= from + length; ) {
    const id = dir.readUInt16LE(q);
    const size = dir.readUInt16LE(q + 2);
    if (id === 0x0001 && size >= 8 && q + 12 <= dir.length) return Number(dir.readBigUInt64LE(q + 4));
    q += 4 + size;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * One entry of a zip file unpacked (stored or deflated), found by name in the central directory;
 * undefined when absent, present twice, or in a form this reader does not take (ZIP64 offsets,
 * another method).
 * Callers bound the unpacked size first (`zipUnpackedSize`).
 */
export async function zipEntry(file: string, name: string): Promise<Buffer | undefined> {
  const fh = await open(file, 'r');
  try {
    const end = await endRecord(fh);
    if (end === undefined) return undefined;
    const { size, tail, eocd } = end;
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (dirOffset + dirSize > size) return undefined;
    const dir = Buffer.alloc(dirSize);
    await fh.read(dir, 0, dirSize, dirOffset);
    let found: { method: number; packed: number; local: number } | undefined;
    for (let n = 0, p = 0; n < entries && p + 46 <= dir.length; n++) {
      const method = dir.readUInt16LE(p + 10);
      const packed = dir.readUInt32LE(p + 20);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      const local = dir.readUInt32LE(p + 42);
      if (dir.toString('utf8', p + 46, p + 46 + nameLength) === name) {
        // Two entries of one name: which one a reader takes is its own choice; neither is trusted.
        if (found !== undefined) return undefined;
        found = { method, packed, local };
      }
      p += 46 + nameLength + extraLength + commentLength;
    }
    if (found === undefined) return undefined;
    const { method, packed, local } = found;
    if (packed === 0xffffffff || local === 0xffffffff || (method !== 0 && method !== 8)) return undefined;
    const head = Buffer.alloc(30);
    await fh.read(head, 0, 30, local);
    if (head.readUInt32LE(0) !== 0x04034b50) return undefined;
    const start = local + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
    const data = Buffer.alloc(packed);
    await fh.read(data, 0, packed, start);
    return method === 0 ? data : inflateRawSync(data);
  } finally {
    await fh.close();
  }
}
