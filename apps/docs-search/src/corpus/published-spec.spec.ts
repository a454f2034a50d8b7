import fs from 'node:fs';
import path from 'node:path';
import { findDocsRoot } from './collect-sources';

/**
 * docs/api-v2.md is the published copy of the API spec the platform implements, indexed for
 * docs-search. Where the shared spec sits beside the checkout (developers' machines, CI), the copy
 * must be the same text.
 */
describe('the published API spec', () => {
  const root = findDocsRoot(__dirname)!;
  const shared = path.join(root, '..', 'shared', 'spec', 'api-v2.md');

  it('is shipped in docs/ and matches the shared spec when that is present', () => {
    const published = fs.readFileSync(path.join(root, 'docs', 'api-v2.md'), 'utf8');
    expect(published).toMatch(/^# Web Data Service API, version 2/);
    if (fs.existsSync(shared)) expect(published).toBe(fs.readFileSync(shared, 'utf8'));
  });
});
