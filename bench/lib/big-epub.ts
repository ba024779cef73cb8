import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import yazl from 'yazl';
import { CONTAINER_XML } from '../../test/support/fixtures/epub.js';
import { writeZipFile } from '../../test/support/fixtures/zip.js';
import { benchOpf } from './book-bytes.js';

/** Writes an EPUB of about `bytes` bytes to `path`: a normal package plus one stored entry of random bytes. */
export async function writeBigEpub(path: string, bytes: number, title: string): Promise<void> {
  const padPath = `${path}.pad`;
  const pad = await open(padPath, 'w');
  const chunk = 8 * 1024 * 1024;
  for (let written = 0; written < bytes; written += chunk) await pad.write(randomBytes(Math.min(chunk, bytes - written)));
  await pad.close();
  await writeZipFile(path, (zip: yazl.ZipFile) => {
    zip.addBuffer(Buffer.from('application/epub+zip'), 'mimetype', { compress: false });
    zip.addBuffer(Buffer.from(CONTAINER_XML('OEBPS/content.opf')), 'META-INF/container.xml');
    zip.addBuffer(Buffer.from(benchOpf(title, 'Big Author', 'large')), 'OEBPS/content.opf');
    zip.addBuffer(Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Big.</p></body></html>'), 'OEBPS/ch1.xhtml');
    zip.addFile(padPath, 'OEBPS/media/pad.bin', { compress: false });
  });
  await rm(padPath);
}
