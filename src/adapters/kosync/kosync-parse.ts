import type { z } from 'zod';
import { invalidInput } from '../../domain/error-catalogue.js';
import { controlCharacterIssues } from '../../domain/text.js';

/**
 * A part of a KOReader request as the schema reads it, held to the text rule every other request follows
 * (domain/text.ts): a 422 `validation_failed` naming each field that fails or holds a control character.
 */
export function parse<T>(schema: z.ZodType<T>, value: unknown, location: 'body' | 'path'): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw invalidInput(`The request ${location} is invalid.`, result.error.issues.map((issue) => ({ location, field: issue.path.map(String).join('.') || '(root)', message: issue.message })));
  }
  const controls = controlCharacterIssues(result.data);
  if (controls.length > 0) throw invalidInput(`The request ${location} is invalid.`, controls.map((issue) => ({ location, ...issue })));
  return result.data;
}
