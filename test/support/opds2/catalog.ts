import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import type { Opds2Feed } from '../../../src/adapters/opds/opds2-feeds.js';
import type { Opds2Link } from '../../../src/adapters/opds/opds2-links.js';
import type { Opds2Publication } from '../../../src/adapters/opds/opds2-publication.js';
import { checkOpds2Feed, checkOpds2Publication, OPDS2_FEED, OPDS2_PUBLICATION } from './opds2-validator.js';
import { readFeed, readPublication, type OPDSFeed, type OPDSPublication } from './readium-client.js';

/** Fetches OPDS 2.0 documents with Basic credentials; each is checked against the schemas and read back by r2-opds-js. */
export const PASSWORD = 'correct horse battery';

export const opds = (app: Express, path: string, who = 'alice', password = PASSWORD) => request(app).get(path).auth(who, password);

async function fetchChecked(app: Express, path: string, who: string, type: string): Promise<string> {
  const res = await opds(app, path, who);
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toBe(type);
  return res.text;
}

/** A feed as served (JSON), and as Readium's client reads it, with no schema problem nor client complaint. */
export async function fetchFeed(app: Express, path: string, who = 'alice'): Promise<{ json: Opds2Feed; client: OPDSFeed }> {
  const body = await fetchChecked(app, path, who, OPDS2_FEED);
  const { problems } = checkOpds2Feed(body);
  expect(problems, path).toEqual([]);
  const { value, complaints } = readFeed(body);
  expect(complaints, path).toEqual([]);
  return { json: JSON.parse(body) as Opds2Feed, client: value };
}

export async function fetchPublication(app: Express, path: string, who = 'alice'): Promise<{ json: Opds2Publication; client: OPDSPublication }> {
  const body = await fetchChecked(app, path, who, OPDS2_PUBLICATION);
  expect(checkOpds2Publication(body).problems, path).toEqual([]);
  const { value, complaints } = readPublication(body);
  expect(complaints, path).toEqual([]);
  return { json: JSON.parse(body) as Opds2Publication, client: value };
}

const relsOf = (rel: string | readonly string[] | undefined) => [rel ?? []].flat();

/** The hrefs of the links with `rel`, in the served JSON. */
export const hrefs = (links: readonly Opds2Link[], rel: string) => links.filter((l) => relsOf(l.rel).includes(rel)).map((l) => l.href);

/** The same, as r2-opds-js read them. */
export const clientHrefs = (links: readonly { Rel: string[]; Href: string }[] | undefined, rel: string) =>
  (links ?? []).filter((l) => (l.Rel ?? []).includes(rel)).map((l) => l.Href);
