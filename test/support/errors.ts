import { DomainError, type FieldError } from '../../src/domain/errors.js';

/** Runs work and returns the coded domain error it throws; fails when it succeeds or throws anything else. */
export async function errorOf(work: Promise<unknown>): Promise<DomainError & { errors?: readonly FieldError[] }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a domain error, but the call succeeded');
}
