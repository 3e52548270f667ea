#!/usr/bin/env node
/// <reference types="node" />
import { main } from './main.js';

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

// A closed stderr (`2>&1 | head`) is no reason to crash with a stack trace; main handles stdout.
process.stderr.on('error', () => {});

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  readStdin,
  stdin: process.stdin,
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`consilium: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);
