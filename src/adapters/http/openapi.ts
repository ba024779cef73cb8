import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

export const API_VERSION = '1.0.0';

export function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  return registry;
}

export function openApiDocument(registry: OpenAPIRegistry, publicUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Stacks',
      version: API_VERSION,
      description: 'A REST service for personal and household ebook libraries.',
    },
    servers: [{ url: publicUrl }],
  });
}
