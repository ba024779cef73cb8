/*
 * KOReader's OPDS browser as it decides what a catalog entry offers for download, for testing Stacks'
 * acquisition links (koreader/koreader fc88887662, 2026-08-22):
 * - plugins/opds.koplugin/opdsbrowser.lua, genItemTableFromCatalog: an OPDS 1.2 entry link whose `rel`
 *   matches `^http://opds%-spec%.org/acquisition` is an acquisition {type, href, title}; for OPDS 2.0
 *   (parseOPDS2 … entry.links) the same test on the publication's links.
 * - showDownloads: an acquisition gets a download button only when getFiletype finds a file type:
 *   the href's suffix if DocumentRegistry has a provider for `dummy.<suffix>`, else
 *   DocumentRegistry:mimeToExt(type) when hasProvider(nil, type), i.e. the type is registered exactly.
 * - frontend/document/documentregistry.lua: mimeToExt is the first extension registered for a media type;
 *   the providers register in this order: credocument, pdfdocument, djvudocument, picdocument.
 */

/** [extension, media type] of every addProvider call, in registration order (exact strings, trailing space included). */
export const KOREADER_PROVIDERS: readonly (readonly [string, string])[] = [
  ['azw', 'application/vnd.amazon.mobi8-ebook'],
  ['azw', 'application/x-mobi8-ebook'],
  ['chm', 'application/vnd.ms-htmlhelp'],
  ['doc', 'application/msword'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['docm', 'application/vnd.ms-word.document.macroEnabled.12'],
  ['epub', 'application/epub+zip'],
  ['epub', 'application/epub'],
  ['epub3', 'application/epub+zip'],
  ['fb2', 'application/fb2'],
  ['fb2', 'application/x-fictionbook+xml'],
  ['fb2', 'text/fb2+xml'],
  ['fb2.zip', 'application/zip'],
  ['fb2.zip', 'application/fb2+zip'],
  ['fb3', 'application/fb3'],
  ['htm', 'text/html'],
  ['html', 'text/html'],
  ['htm.zip', 'application/zip'],
  ['htmlz', 'application/html+zip'],
  ['html.zip', 'application/zip'],
  ['html.zip', 'application/html+zip'],
  ['log', 'text/plain'],
  ['log.zip', 'application/zip'],
  ['md', 'text/plain'],
  ['md.zip', 'application/zip'],
  ['mobi', 'application/x-mobipocket-ebook'],
  ['odt', 'application/vnd.oasis.opendocument.text '],
  ['pdb', 'application/vnd.palm'],
  ['prc', 'application/vnd.palm'],
  ['rtf', 'application/rtf'],
  ['rtf.zip', 'application/rtf+zip'],
  ['svg', 'image/svg+xml'],
  ['tcr', 'application/tcr'],
  ['txt', 'text/plain'],
  ['txt.zip', 'application/zip'],
  ['txt.zip', 'application/txt+zip'],
  ['xhtml', 'application/xhtml+xml'],
  ['xml', 'application/xml'],
  ['zip', 'application/zip'],
  ['sh', 'application/x-shellscript'],
  ['py', 'text/x-python'],
  ['cbr', 'application/vnd.comicbook-rar'],
  ['cbr', 'application/vnd.rar'],
  ['cbt', 'application/vnd.comicbook+tar'],
  ['cbz', 'application/vnd.comicbook+zip'],
  ['cbz', 'application/x-cbz'],
  ['cfb', 'application/octet-stream'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['epub', 'application/epub+zip'],
  ['epub3', 'application/epub+zip'],
  ['fb2', 'application/fb2'],
  ['htm', 'text/html'],
  ['html', 'text/html'],
  ['mobi', 'application/x-mobipocket-ebook'],
  ['pdf', 'application/pdf'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['tar', 'application/x-tar'],
  ['txt', 'text/plain'],
  ['xhtml', 'application/xhtml+xml'],
  ['xml', 'application/xml'],
  ['xps', 'application/oxps'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['zip', 'application/zip'],
  ['gif', 'image/gif'],
  ['hdp', 'image/vnd.ms-photo'],
  ['j2k', 'image/jp2'],
  ['jp2', 'image/jp2'],
  ['jpeg', 'image/jpeg'],
  ['jpg', 'image/jpeg'],
  ['jxr', 'image/jxr'],
  ['pam', 'image/x-portable-arbitrarymap'],
  ['pbm', 'image/x‑portable‑bitmap'],
  ['pgm', 'image/x‑portable‑bitmap'],
  ['png', 'image/png'],
  ['pnm', 'image/x‑portable‑bitmap'],
  ['ppm', 'image/x‑portable‑bitmap'],
  ['svg', 'image/svg+xml'],
  ['tif', 'image/tiff'],
  ['tiff', 'image/tiff'],
  ['wdp', 'image/vnd.ms-photo'],
  ['djvu', 'image/vnd.djvu'],
  ['djvu', 'application/djvu'],
  ['djvu', 'image/x-djvu'],
  ['djv', 'image/vnd.djvu'],
  ['gif', 'image/gif'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['png', 'image/png'],
  ['webp', 'image/webp'],
];

const mimeToExt = new Map<string, string>();
for (const [extension, type] of KOREADER_PROVIDERS) if (!mimeToExt.has(type)) mimeToExt.set(type, extension.toLowerCase());
const extensions = new Set(KOREADER_PROVIDERS.map(([extension]) => extension.toLowerCase()));

export const ACQUISITION_REL = /^http:\/\/opds-spec\.org\/acquisition/;

/** util.getFileNameSuffix on the whole (absolute) href: everything after its last dot, '' when none. */
function suffixOf(href: string): string {
  const dot = href.lastIndexOf('.');
  return dot < 0 ? '' : href.slice(dot + 1).toLowerCase();
}

/** OPDSBrowser.getFiletype: the file type KOReader saves and opens an acquisition as, or null (no download button). */
export function koreaderFiletype(link: { readonly href: string; readonly type?: string }): string | null {
  const suffix = suffixOf(link.href);
  if (suffix !== '' && extensions.has(suffix)) return suffix;
  return link.type !== undefined ? (mimeToExt.get(link.type) ?? null) : null;
}
