/**
 * What KOReader shows when Stacks refuses a sync request (main.lua shows the body's `message`): written
 * for the person holding the e-reader, by error code. KOReader shows the message of a 401 (and of the
 * 402 registration refusal); any other status reads "Unknown server error" there, and the message
 * still tells a person looking at the answer what happened.
 */
const MESSAGES: Readonly<Record<string, string>> = {
  invalid_token: 'Wrong username or key. Log in with your Stacks username and a Stacks API key as the password.',
  missing_token: 'Wrong username or key. Log in with your Stacks username and a Stacks API key as the password.',
  permission_denied: 'This Stacks key may not read books. Create a key with the books:read permission and log in with it.',
  kosync_registration_closed: 'Accounts are made in Stacks. Log in with your Stacks username and a Stacks API key as the password.',
  validation_failed: 'Stacks could not store this progress: KOReader sent a field it does not accept.',
  malformed_json: 'Stacks could not read the request: it is not valid JSON.',
  malformed_request: 'Stacks could not read the request.',
  request_aborted: 'The request was cut off. Try again.',
  request_refused: 'Stacks could not read the request.',
  payload_too_large: 'The request is too large for Stacks progress sync.',
  unsupported_media_type: 'Stacks progress sync takes JSON requests only.',
  route_not_found: 'This is not a Stacks progress sync address. Set the custom sync server to your Stacks address followed by /kosync.',
  method_not_allowed: 'This Stacks progress sync address does not take this request.',
  store_unavailable: 'Stacks cannot reach its database right now. Try again later.',
  metadata_busy: 'Stacks is busy. Try again later.',
  internal_error: 'Stacks had a problem with this request. Try again later.',
};

/** The message for a refusal with this code; a wait, when there is one, in whole minutes. */
export function readerMessage(code: string, retryAfterSeconds?: number): string {
  if (code === 'rate_limited') {
    const minutes = Math.max(1, Math.ceil((retryAfterSeconds ?? 60) / 60));
    return `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
  }
  return MESSAGES[code] ?? 'Stacks refused this request. Try again later.';
}
