import { ValidationError } from '../../domain/errors.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, passwordByteLength } from '../../domain/user.js';

/** bcrypt reads at most 72 bytes: longer passwords are refused, never silently truncated. */
export function assertAcceptablePassword(password: string, field: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw new ValidationError('The password is too short.', [
      { location: 'body', field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` },
    ]);
  }
  if (passwordByteLength(password) > PASSWORD_MAX_BYTES) {
    throw new ValidationError(
      `The password is longer than ${PASSWORD_MAX_BYTES} bytes in UTF-8.`,
      [{ location: 'body', field, message: `must be at most ${PASSWORD_MAX_BYTES} UTF-8 bytes` }],
      'password_too_long',
    );
  }
}
