/** Piscina worker: bcrypt work off the main event loop. */
import { setPriority } from 'node:os';
import bcrypt from 'bcryptjs';

// On Linux this lowers only this worker thread, so request handling on the main thread wins the CPU
// during a login burst; where that is not permitted the default priority stays.
try {
  setPriority(10);
} catch {
  // keep the default priority
}

export type BcryptTask =
  | { readonly op: 'hash'; readonly password: string; readonly cost: number }
  | { readonly op: 'compare'; readonly password: string; readonly hash: string };

export default function run(task: BcryptTask): string | boolean {
  return task.op === 'hash' ? bcrypt.hashSync(task.password, task.cost) : bcrypt.compareSync(task.password, task.hash);
}
