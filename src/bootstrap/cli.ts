#!/usr/bin/env node
import 'reflect-metadata';
import { text } from 'node:stream/consumers';
import { runStacksCli } from './run-stacks-cli.js';
import { loadDotEnv } from './config.js';

loadDotEnv();
const io = { stdout: process.stdout, stderr: process.stderr, readStdin: () => text(process.stdin) };
runStacksCli(process.argv.slice(2), process.env, io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`stacks: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
