/** Piscina worker: bcrypt work off the main event loop. */
import bcrypt from 'bcryptjs';

export type BcryptTask =
  | { readonly op: 'hash'; readonly password: string; readonly cost: number }
  | { readonly op: 'compare'; readonly password: string; readonly hash: string };

export default function run(task: BcryptTask): string | boolean {
  return task.op === 'hash' ? bcrypt.hashSync(task.password, task.cost) : bcrypt.compareSync(task.password, task.hash);
}
