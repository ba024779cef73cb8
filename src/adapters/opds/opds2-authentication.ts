import { AUTH_DOCUMENT, OPDS2_RELS, OPDS2_TYPES, V2 } from './opds2-links.js';

/** The Authentication for OPDS 1.0 document of the catalog: HTTP Basic, the same sign-in as OPDS 1.2. */
export interface AuthenticationDocument {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly links: readonly { readonly rel: string; readonly href: string; readonly type: string }[];
  readonly authentication: readonly { readonly type: string; readonly labels: { readonly login: string; readonly password: string } }[];
}

/** `id` is the document's canonical, absolute URL (section 2.3.1): PUBLIC_URL, or the request's own origin. */
export function authenticationDocument(baseUrl: string): AuthenticationDocument {
  return {
    id: `${baseUrl}${AUTH_DOCUMENT}`,
    title: 'Stacks',
    description: 'Sign in with your Stacks username (or e-mail address) and password.',
    links: [{ rel: 'start', href: `${baseUrl}${V2}`, type: OPDS2_TYPES.feed }],
    authentication: [{ type: OPDS2_RELS.basicAuth, labels: { login: 'Username', password: 'Password or API key' } }],
  };
}

/** The RFC 8288 `Link` header that points a client at the document (section 2.4). */
export const AUTH_DOCUMENT_LINK_HEADER = `<${AUTH_DOCUMENT}>; rel="${OPDS2_RELS.authDocument}"; type="${OPDS2_TYPES.authentication}"`;
