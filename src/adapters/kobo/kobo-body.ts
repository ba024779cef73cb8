import express, { type RequestHandler } from 'express';
import { invalidInput } from '../../domain/error-catalogue.js';
import { controlCharacterIssues } from '../../domain/text.js';

/**
 * A Kobo JSON body (the device sends any content type), held to the text rule every other body follows:
 * a string anywhere in it with NUL, C0 other than tab and line breaks, DEL or C1 is 422 `validation_failed`.
 */
export function koboJson(limit: string): RequestHandler {
  const parse = express.json({ limit, type: () => true });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const issues = controlCharacterIssues(req.body);
      if (issues.length > 0) return next(invalidInput('The request body is invalid.', issues));
      next();
    });
  };
}
