import sharp from 'sharp';
import type { CoverResizer, CoverSize } from '../../application/ports.js';
import { corruptBookFile } from '../../domain/error-catalogue.js';

/** Largest image (in pixels) decoded; a cover larger than 100 megapixels is refused. */
const MAX_INPUT_PIXELS = 100_000_000;
const TIMEOUT_SECONDS = 10;

/**
 * Cover resizing with sharp (libvips, off the event loop): fitted inside the box, never enlarged,
 * EXIF orientation applied, metadata stripped, out as a progressive JPEG (grey when asked).
 */
export class SharpCoverResizer implements CoverResizer {
  async resize(image: Uint8Array, size: CoverSize): Promise<Uint8Array> {
    try {
      let pipeline = sharp(image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false })
        .timeout({ seconds: TIMEOUT_SECONDS })
        .rotate()
        .resize({ width: size.maxWidth, height: size.maxHeight, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' });
      if (size.greyscale) pipeline = pipeline.greyscale().toColourspace('b-w');
      return new Uint8Array(await pipeline.jpeg({ quality: size.quality, progressive: true, mozjpeg: false }).toBuffer());
    } catch {
      throw corruptBookFile('The cover image could not be read.');
    }
  }
}
