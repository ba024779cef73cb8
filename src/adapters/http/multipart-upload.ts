import busboy from 'busboy';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { invalidInput, payloadTooLarge } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import {
  duplicateField,
  fieldTooLarge,
  invalidFieldName,
  malformedMultipart,
  requestAborted,
  tooManyFields,
  tooManyFiles,
  tooManyParts,
} from './http-errors.js';

/** Caps on every dimension of a multipart body (UP-02); the file size comes per upload. */
export const MULTIPART_LIMITS = {
  files: 1,
  fields: 20,
  parts: 25,
  fieldSize: 64 * 1024,
  fieldNameSize: 100,
  headerPairs: 50,
} as const;

export interface MultipartUploadOptions {
  /** Largest file accepted, in bytes. */
  readonly maxFileBytes: number;
  /** The text fields allowed besides the file part. */
  readonly fieldNames: ReadonlySet<string>;
}

export interface MultipartUpload {
  /** The bytes of the one file part named `file`, streamed; reading starts on first use. */
  readonly content: AsyncIterable<Uint8Array>;
  /** Settles when the whole body has been read: the client's file name and the text fields. */
  finished(): Promise<{ fileName: string | null; fields: Readonly<Record<string, string>> }>;
  /** Stops parsing and throws away the rest of the body; the connection closes after the answer. */
  discard(): void;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // Failures reach whoever awaits; none is left unhandled.
  return { promise, resolve, reject };
}

const bodyError = (detail: string, field: string, message: string) => invalidInput(detail, [{ field, message }]);

function fieldProblem(name: unknown, truncated: boolean, allowed: ReadonlySet<string>): DomainError | null {
  if (typeof name !== 'string' || name === '' || name.length > MULTIPART_LIMITS.fieldNameSize || /[[\].]/.test(name)) {
    return invalidFieldName();
  }
  if (name === 'file') return bodyError('The file must be sent as a file part.', 'file', 'must be a file part');
  if (!allowed.has(name)) return bodyError(`Unknown upload field '${name}'.`, name, 'is not an upload field');
  if (truncated) return fieldTooLarge(name, MULTIPART_LIMITS.fieldSize);
  return null;
}

/**
 * Reads a multipart/form-data upload with busboy: exactly one file part named `file`, streamed
 * (never buffered), plus allow-listed text fields, which may come before or after the file.
 */
export function multipartUpload(req: Request, res: Response, options: MultipartUploadOptions): MultipartUpload {
  const file = deferred<Readable & { truncated?: boolean }>();
  const done = deferred<void>();
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let parser: busboy.Busboy | null = null;
  let fileStream: Readable | null = null;
  let fileName: string | null = null;
  let failure: DomainError | null = null;

  const discard = () => {
    if (parser) req.unpipe(parser);
    if (!req.complete) {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      req.resume();
    }
  };

  const fail = (error: DomainError) => {
    if (failure) return;
    failure = error;
    file.reject(error);
    done.reject(error);
    if (fileStream && !fileStream.readableEnded) fileStream.destroy(error);
    discard();
  };

  const start = () => {
    if (parser) return;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { ...MULTIPART_LIMITS, fileSize: options.maxFileBytes + 1 } });
    } catch {
      return fail(malformedMultipart());
    }
    parser.on('file', (name, stream, info) => {
      if (failure || fileStream) return void stream.resume();
      if (name !== 'file') {
        stream.resume();
        return fail(bodyError('The file part must be named file.', String(name ?? ''), 'only one file part, named file, is accepted'));
      }
      stream.on('error', () => undefined); // The reader gets the error; none goes unhandled.
      fileStream = stream;
      fileName = typeof info.filename === 'string' ? info.filename : null;
      file.resolve(stream);
    });
    parser.on('field', (name, value, info) => {
      if (failure) return;
      const problem = fieldProblem(name, info.valueTruncated || info.nameTruncated, options.fieldNames);
      if (problem) return fail(problem);
      if (name in fields) return fail(duplicateField(name));
      fields[name] = value;
    });
    parser.on('filesLimit', () => fail(tooManyFiles()));
    parser.on('fieldsLimit', () => fail(tooManyFields(MULTIPART_LIMITS.fields)));
    parser.on('partsLimit', () => fail(tooManyParts(MULTIPART_LIMITS.parts)));
    parser.on('error', () => fail(malformedMultipart()));
    parser.on('close', () => {
      if (fileStream) done.resolve();
      else fail(bodyError('A file is required.', 'file', 'a file part named file is required'));
    });
    req.on('error', () => fail(requestAborted()));
    req.on('close', () => {
      if (!req.complete) fail(requestAborted());
    });
    req.pipe(parser);
  };

  const content: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      start();
      const stream = await file.promise;
      let ended = false;
      try {
        for await (const chunk of stream) yield chunk as Uint8Array;
        ended = true;
      } catch (error) {
        // busboy ends the file stream with a plain Error on a truncated body ("Unexpected end of form").
        throw failure ?? (error instanceof DomainError ? error : malformedMultipart());
      } finally {
        if (!ended) discard();
      }
      if (stream.truncated) {
        const error = payloadTooLarge(options.maxFileBytes);
        fail(error);
        throw error;
      }
    },
  };

  return {
    content,
    async finished() {
      start();
      await done.promise;
      return { fileName, fields: { ...fields } };
    },
    discard,
  };
}
