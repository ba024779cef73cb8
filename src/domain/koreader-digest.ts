/** KOReader's two digests of a book file, the `document` its kosync plugin sends (lowercase hex MD5s). */
export interface KoreaderDigests {
  /** `util.partialMD5`: one MD5 over 1,024-byte samples of the file at KOReader's offsets. */
  readonly partialMd5: string;
  /** MD5 of the file name as Stacks serves it (KOReader's "filename" matching). */
  readonly fileNameMd5: string;
}
