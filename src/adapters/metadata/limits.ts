import { corruptBookFile } from '../../domain/error-catalogue.js';
import { UnprocessableError } from '../../domain/errors.js';

/** Resource limits for reading one untrusted book file. */
export interface MetadataLimits {
  /** Most entries a ZIP may have (UP-04). */
  readonly maxZipEntries: number;
  /** Largest declared total uncompressed size of a ZIP. */
  readonly maxZipTotalBytes: number;
  /** Largest XML document (container.xml, OPF, ComicInfo.xml, FB2 description). */
  readonly maxXmlBytes: number;
  /** Deepest element nesting accepted in XML. */
  readonly maxXmlDepth: number;
  /** Largest cover image. */
  readonly maxCoverBytes: number;
  /** Highest uncompressed/compressed ratio of an entry that is read. */
  readonly maxCompressionRatio: number;
  /** Most pages a PDF may declare. */
  readonly maxPdfPages: number;
  /** Largest PDF handed to pdf.js. */
  readonly maxPdfBytes: number;
}

export const DEFAULT_LIMITS: MetadataLimits = {
  maxZipEntries: 10_000,
  maxZipTotalBytes: 2 * 1024 ** 3,
  maxXmlBytes: 2 * 1024 ** 2,
  maxXmlDepth: 256,
  maxCoverBytes: 10 * 1024 ** 2,
  maxCompressionRatio: 200,
  maxPdfPages: 100_000,
  maxPdfBytes: 512 * 1024 ** 2,
};

/** The 422 thrown for a file of a known type that cannot be read safely. */
export function corrupt(detail: string): UnprocessableError {
  return corruptBookFile(detail);
}
