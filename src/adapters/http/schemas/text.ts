import { isCleanName, NAME_CONTROL_MESSAGE } from '../../../domain/text.js';

/** The shared text rule lives in the domain (the Kobo adapter applies it too). */
export { controlCharacterIssues, type TextIssue } from '../../../domain/text.js';
import { z } from '../zod.js';

/** A name field (shelf, key or device name): no tab or line break either. */
export const nameText = (max: number) => z.string().max(max).refine(isCleanName, NAME_CONTROL_MESSAGE);
