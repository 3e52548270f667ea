import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contractPath, loadContract } from './contract.js';

describe('loadContract', () => {
  it('reads the contract exactly as the `yaml` package does (the docs and tests parse it with `yaml`)', () => {
    const doc = loadContract();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc).toStrictEqual(parse(readFileSync(contractPath, 'utf8')));
  });
});
