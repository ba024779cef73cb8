import { invalidInput, passwordTooLong } from '../../domain/error-catalogue.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, passwordByteLength } from '../../domain/user.js';

/** bcrypt reads at most 72 bytes: longer passwords are refused, never silently truncated. */
export function assertAcceptablePassword(password: string, field: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw invalidInput('The password is too short.', [{ field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }]);
  }
  if (passwordByteLength(password) > PASSWORD_MAX_BYTES) {
    throw passwordTooLong(field, PASSWORD_MAX_BYTES);
  }
}
