/*
 * MOBI / AZW3 (PalmDB + MOBI header + EXTH) metadata, parsed by hand: no maintained npm library
 * reads this format (the few that exist are abandoned or pull in native code), and only the
 * header records are needed. Every read goes through BoundedView, which throws on any offset
 * or length outside the bytes actually read from disk.
 */
import type { ExtractedBook, ExtractedCover } from '../../application/ports.js';
import type { BookFormat } from '../../domain/book.js';
import { readSlice } from './detect-format.js';
import { sniffImage } from './image-sniff.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { finishMetadata, htmlToText, type RawMetadata } from './sanitize.js';

const PALMDB_HEADER = 78;
const MAX_RECORD0 = 1024 * 1024;
const MAX_EXTH_RECORDS = 1024;
const NO_INDEX = 0xffffffff;

class BoundedView {
  constructor(private readonly buf: Buffer) {}
  get length(): number {
    return this.buf.length;
  }
  private check(offset: number, length: number): void {
    if (!Number.isInteger(offset) || offset < 0 || length < 0 || offset + length > this.buf.length) {
      throw corrupt('MOBI header points outside the file.');
    }
  }
  u16(offset: number): number {
    this.check(offset, 2);
    return this.buf.readUInt16BE(offset);
  }
  u32(offset: number): number {
    this.check(offset, 4);
    return this.buf.readUInt32BE(offset);
  }
  bytes(offset: number, length: number): Buffer {
    this.check(offset, length);
    return this.buf.subarray(offset, offset + length);
  }
  ascii(offset: number, length: number): string {
    return this.bytes(offset, length).toString('latin1');
  }
}

/** Reads the PalmDB name, MOBI full name and EXTH records, and the cover image record. */
export async function readMobi(path: string, size: number, limits: MetadataLimits): Promise<ExtractedBook> {
  const header = new BoundedView(await readSlice(path, 0, PALMDB_HEADER));
  const recordCount = header.u16(76);
  if (recordCount < 2) throw corrupt('MOBI file has no records.');
  const table = new BoundedView(await readSlice(path, PALMDB_HEADER, recordCount * 8));
  const offsets: number[] = [];
  for (let i = 0; i < recordCount; i++) {
    const offset = table.u32(i * 8);
    if (offset < PALMDB_HEADER + recordCount * 8 || offset > size || (i > 0 && offset < offsets[i - 1]!)) {
      throw corrupt('MOBI record table is inconsistent.');
    }
    offsets.push(offset);
  }
  const recordEnd = (i: number) => (i + 1 < offsets.length ? offsets[i + 1]! : size);
  const record0Length = Math.min(recordEnd(0) - offsets[0]!, MAX_RECORD0);
  const r0 = new BoundedView(await readSlice(path, offsets[0]!, record0Length));
  if (r0.ascii(16, 4) !== 'MOBI') throw corrupt('MOBI header missing.');

  const headerLength = r0.u32(20);
  const decoder = textDecoder(r0.u32(28));
  const version = r0.u32(36);
  const field = (offset: number) => (16 + headerLength >= offset + 4 ? r0.u32(offset) : null);
  const fullNameOffset = field(84);
  const fullNameLength = field(88);
  const firstImage = field(108);
  const exthFlags = field(128) ?? 0;
  const fullName =
    fullNameOffset !== null && fullNameLength !== null && fullNameLength > 0
      ? decoder.decode(r0.bytes(fullNameOffset, Math.min(fullNameLength, 4096)))
      : null;
  const palmName = header.ascii(0, 32).split('\0')[0]!.replace(/_/g, ' ');

  const exth = (exthFlags & 0x40) !== 0 ? readExth(r0, 16 + headerLength) : new Map<number, Buffer[]>();
  const strings = (type: number) => (exth.get(type) ?? []).map((b) => decoder.decode(b));
  const kf8Boundary = exth.get(121)?.[0];
  const isKf8 = version === 8 || (kf8Boundary !== undefined && kf8Boundary.length >= 4 && kf8Boundary.readUInt32BE(0) !== NO_INDEX);
  const description = strings(103)[0];
  const raw: RawMetadata = {
    title: strings(503)[0] ?? fullName ?? palmName,
    authors: strings(100).map(firstNameFirst),
    publisher: strings(101)[0],
    description: description === undefined ? null : htmlToText(description),
    isbn: strings(104),
    tags: strings(105).flatMap((s) => s.split(';')),
    published: strings(106)[0],
    language: strings(524)[0],
  };
  const format: BookFormat = isKf8 ? 'azw3' : 'mobi';

  let cover: ExtractedCover | null = null;
  const coverOffset = exth.get(201)?.[0];
  if (firstImage !== null && firstImage !== NO_INDEX && coverOffset && coverOffset.length >= 4 && coverOffset.readUInt32BE(0) !== NO_INDEX) {
    const index = firstImage + coverOffset.readUInt32BE(0);
    if (index < offsets.length) {
      const length = recordEnd(index) - offsets[index]!;
      if (length > 0 && length <= limits.maxCoverBytes) {
        const data = await readSlice(path, offsets[index]!, length);
        const mediaType = sniffImage(data);
        if (mediaType) cover = { data: new Uint8Array(data), mediaType };
      }
    }
  }
  return { format, metadata: finishMetadata(raw), cover };
}

/** One EXTH author record is one name; calibre turns Amazon's `Last, First` round (headers.py). */
function firstNameFirst(name: string): string {
  const m = /^([^,]+?)\s*,\s+([^,]+)$/.exec(name.trim());
  return m ? `${m[2]} ${m[1]}` : name;
}

function readExth(r0: BoundedView, start: number): Map<number, Buffer[]> {
  const records = new Map<number, Buffer[]>();
  if (r0.ascii(start, 4) !== 'EXTH') throw corrupt('EXTH header missing.');
  const count = r0.u32(start + 8);
  if (count > MAX_EXTH_RECORDS) throw corrupt('Too many EXTH records.');
  let at = start + 12;
  for (let i = 0; i < count; i++) {
    const type = r0.u32(at);
    const length = r0.u32(at + 4);
    if (length < 8) throw corrupt('EXTH record has a bad length.');
    const data = r0.bytes(at + 8, length - 8);
    records.set(type, [...(records.get(type) ?? []), data]);
    at += length;
  }
  return records;
}

function textDecoder(encoding: number): { decode(input: Uint8Array): string } {
  if (encoding === 65001) return new TextDecoder('utf-8');
  if (encoding === 1252) return new TextDecoder('windows-1252');
  return new TextDecoder('latin1');
}
