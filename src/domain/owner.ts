/** The public face of a user on objects they own. */
export interface OwnerRef {
  readonly id: string;
  readonly username: string;
}
