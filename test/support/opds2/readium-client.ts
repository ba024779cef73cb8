import { TaJsonDeserialize } from 'r2-lcp-js/dist/es8-es2017/src/serializable.js';
import { initGlobalConverters_GENERIC, initGlobalConverters_OPDS } from 'r2-opds-js/dist/es8-es2017/src/opds/init-globals.js';
import { OPDSFeed } from 'r2-opds-js/dist/es8-es2017/src/opds/opds2/opds2.js';
import { OPDSAuthenticationDoc } from 'r2-opds-js/dist/es8-es2017/src/opds/opds2/opds2-authentication-doc.js';
import { OPDSPublication } from 'r2-opds-js/dist/es8-es2017/src/opds/opds2/opds2-publication.js';

/**
 * Reads OPDS 2.0 documents the way Readium's readers do: r2-opds-js's models, deserialised with
 * ta-json-x through r2-lcp-js's helper. The models report what they miss (no metadata, no links,
 * no images, a link without href) with console.log; those complaints are returned, not printed.
 */
initGlobalConverters_OPDS();
initGlobalConverters_GENERIC();

function read<T>(body: string, type: new () => T): { value: T; complaints: string[] } {
  const complaints: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void complaints.push(args.map(String).join(' '));
  try {
    return { value: TaJsonDeserialize(JSON.parse(body), type), complaints };
  } finally {
    console.log = log;
  }
}

export const readFeed = (body: string) => read(body, OPDSFeed);
export const readPublication = (body: string) => read(body, OPDSPublication);
export const readAuthenticationDocument = (body: string) => read(body, OPDSAuthenticationDoc);
export type { OPDSFeed, OPDSPublication };
