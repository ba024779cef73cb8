#!/usr/bin/env node
import 'reflect-metadata';
import { runOnProcess } from '../adapters/cli/cli-io.js';
import { loadDotEnv } from './config.js';
import { runStacksCli } from './run-stacks-cli.js';

loadDotEnv();
runOnProcess((io) => runStacksCli(process.argv.slice(2), process.env, io));
