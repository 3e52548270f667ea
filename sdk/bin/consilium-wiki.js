#!/usr/bin/env node
// The `consilium-wiki` bin. It exists before the package is built, so npm links it at install time with
// no install script; the code it runs is the built generator.
import { main } from '../dist/wiki/codegen/cli.js';

process.exitCode = await main(process.argv.slice(2));
