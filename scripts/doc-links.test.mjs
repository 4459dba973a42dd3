import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTree } from './test-tree.mjs';
import { anchors, brokenLinks, slug } from './doc-links.mjs';

const FILES = {
  'crates/core/src/lib.rs': '',
  'crates/core/src/numeric/blob.rs': '',
  'docs/FORMAT.md': '# Format\n\n## The header (v2)\n\n## Size\n\n## Size\n',
  'README.md': [
    '# Project',
    '[format](docs/FORMAT.md), [header](docs/FORMAT.md#the-header-v2), [second size](docs/FORMAT.md#size-1)',
    '[gone](docs/GONE.md) and [bad anchor](docs/FORMAT.md#nowhere) and [site](https://example.com/x)',
    '`crates/core/src/lib.rs`, `crates/core/src/{lib.rs,numeric}`, `crates/core/src/<module>/blob.rs`',
    '`crates/core/src/missing.rs`, `crates/core/{src,tests}`, `numeric/blob.rs` (not from the root)',
    '`build/out.wasm` (ignored), `a/b` (no such root entry), <img src="docs/none.png">',
    '[ref]: crates/core/src/nothing.rs',
    '```sh',
    'cat crates/core/src/fenced.rs   # [x](fenced.md)',
    '```',
    '',
  ].join('\n'),
  'docs/GUIDE.md': '[up](../README.md#project) and [self](#guide) and [sibling](FORMAT.md#nope)\n\n# Guide\n',
};

test('every missing file, folder, anchor and repository path is reported, nothing else', () => {
  withTree({ ...FILES, 'build/.keep': '' }, (root) => {
    const broken = brokenLinks(root, ['README.md', 'docs/GUIDE.md'], { isIgnored: (p) => p.startsWith('build/') });
    assert.deepEqual(
      broken.map((b) => `${b.file}:${b.line} ${b.target}: ${b.reason}`),
      [
        'README.md:3 docs/GONE.md: no such file or folder',
        'README.md:3 docs/FORMAT.md#nowhere: no heading with anchor #nowhere',
        'README.md:5 crates/core/src/missing.rs: no such repository path',
        'README.md:5 crates/core/{src,tests}: no such repository path',
        'README.md:6 docs/none.png: no such file or folder',
        'README.md:7 crates/core/src/nothing.rs: no such file or folder',
        'docs/GUIDE.md:1 FORMAT.md#nope: no heading with anchor #nope',
      ],
    );
  });
});

test('a link out of the repository is reported', () => {
  withTree({ 'README.md': '[out](../elsewhere.md)\n' }, (root) => {
    assert.deepEqual(
      brokenLinks(root, ['README.md']).map((b) => b.reason),
      ['points outside the repository'],
    );
  });
});

test("headings' anchors follow GitHub's slugs", () => {
  assert.equal(slug('Decode kernels'), 'decode-kernels');
  assert.equal(slug('What bounds `delta-none-gorilla-none` in Chromium?'), 'what-bounds-delta-none-gorilla-none-in-chromium');
  assert.equal(slug('[The SDK](x.md): mebo/worker'), 'the-sdk-meboworker');
  assert.equal(slug('snake_case stays'), 'snake_case-stays');
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### B c\n')], ['a', 'a-1', 'b-c']);
});
