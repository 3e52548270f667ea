#!/usr/bin/env node
// The `consilium` bin. It exists before the package is built, so npm links it at install time with no
// install script; the code it runs is the built CLI.
import '../dist/cli/bin.js';
