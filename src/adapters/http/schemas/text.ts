import { isCleanName, isCleanText, NAME_CONTROL_MESSAGE, TEXT_CONTROL_MESSAGE } from '../../../domain/text.js';
import { z } from '../zod.js';

/** One string in a parsed value that breaks the text rule: where it is, and why. */
export interface TextIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * The shared text rule, applied to every parsed body, query and path (route.ts `parse`) and to the upload's
 * text parts: every string anywhere in the value, keys included, refuses NUL, C0 controls other than tab,
 * line feed and carriage return, DEL and C1 controls.
 */
export function controlCharacterIssues(value: unknown, path: readonly string[] = []): TextIssue[] {
  const field = path.join('.') || '(root)';
  if (typeof value === 'string') return isCleanText(value) ? [] : [{ field, message: TEXT_CONTROL_MESSAGE }];
  if (Array.isArray(value)) return value.flatMap((item, i) => controlCharacterIssues(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object' || value instanceof Date) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(isCleanText(key) ? [] : [{ field: [...path, key].join('.'), message: TEXT_CONTROL_MESSAGE }]),
    ...controlCharacterIssues(item, [...path, key]),
  ]);
}

/** A name field (shelf, key or device name): no tab or line break either. */
export const nameText = (max: number) => z.string().max(max).refine(isCleanName, NAME_CONTROL_MESSAGE);
