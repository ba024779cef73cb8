import type { MessagePort } from 'node:worker_threads';
import { DomainError } from '../../domain/errors.js';
import { convertEpubToKepub } from './kepub-archive.js';
import type { MetadataLimits } from './limits.js';

export interface KepubTask {
  readonly input: string;
  readonly output: string;
  readonly limits: MetadataLimits;
  /** Told as soon as a worker picks the task up, so the time budget excludes thread start-up. */
  readonly started?: MessagePort;
}

/** Errors cross the thread boundary as data. */
export type KepubTaskResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** What the worker thread runs: one EPUB converted, any failure reported (never thrown across the boundary). */
export default async function runKepubTask(task: KepubTask): Promise<KepubTaskResult> {
  task.started?.postMessage('started');
  try {
    await convertEpubToKepub(task.input, task.output, task.limits);
    return { ok: true };
  } catch (error) {
    return { ok: false, message: error instanceof DomainError ? error.message : 'The EPUB could not be converted safely.' };
  }
}
