/** A span of a file; `end` is inclusive. */
export interface ByteRange {
  readonly start: number;
  /** Inclusive. */
  readonly end: number;
}

/** The most bytes one `BlobStore.readSpans` call may ask for (the spans are buffered). */
export const MAX_SPAN_BYTES = 1024 * 1024;

/** Refuses byte ranges a blob store must not read: invalid, or more than MAX_SPAN_BYTES in all. */
export function assertReadableSpans(ranges: readonly ByteRange[]): void {
  let total = 0;
  for (const { start, end } of ranges) {
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && end >= start)) throw new RangeError('invalid byte range');
    total += end - start + 1;
  }
  if (total > MAX_SPAN_BYTES) throw new RangeError('spans larger than 1 MiB in all');
}
