import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

/**
 * The API version (`info.version`), semver: a breaking change to the document bumps the major, an
 * addition may bump the minor. test/openapi/compatibility.test.ts holds the document to it (docs/clients.md:
 * "API versioning").
 */
export const API_VERSION = '1.1.0';

/** Each route's `tag`, described, in the order API tools list them. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Authentication: 'Register, sign in with a password, who am I, sign out, change the password, which sign-in methods are on.',
  'Single sign-on': 'Sign in through the OpenID Connect provider set by OIDC_ISSUER, and link it to an existing account.',
  'Personal API keys': 'Long-lived keys for scripts and reading apps, each limited to the permissions it was given.',
  'Users and roles': 'Accounts and the built-in roles (admin only).',
  Books: 'Upload, find, edit, download and delete ebook files and their metadata.',
  'Reading progress': "Each user's reading state of each book.",
  'Kobo sync': 'Personal sync URLs for Kobo e-readers (the Kobo store API itself is served under each URL, outside this document).',
  Shelves: 'Named, ordered lists of books, private or public.',
  Operations: 'Liveness and readiness probes for orchestrators; public, never rate-limited.',
};

export function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  return registry;
}

/** The document's tags: the described ones in use, then any a route names without a description (the lint reports those). */
function tagsOf(registry: OpenAPIRegistry) {
  const used = new Set(registry.definitions.flatMap((d) => (d.type === 'route' ? d.route.tags ?? [] : [])));
  const described = Object.keys(TAG_DESCRIPTIONS).filter((name) => used.has(name));
  const undescribed = [...used].filter((name) => !(name in TAG_DESCRIPTIONS));
  return [...described.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })), ...undescribed.map((name) => ({ name }))];
}

export function openApiDocument(registry: OpenAPIRegistry, publicUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Stacks',
      version: API_VERSION,
      description: 'A REST service for personal and household ebook libraries.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: publicUrl, description: 'This Stacks instance (PUBLIC_URL)' }],
    tags: tagsOf(registry),
  });
}
