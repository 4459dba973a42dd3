import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTree } from './test-tree.mjs';
import { findCycle } from './import-cycles.mjs';
import { expandUse, moduleGraph, stripRust } from './rust-cycles.mjs';

const names = (dir, cycle) => cycle?.map((f) => f.slice(dir.length + 1));

test('two siblings that take items from each other are a circle, through a use tree or an expression', () => {
  withTree({
    'lib.rs': 'mod enc;\npub use enc::Thing;\n',
    'enc/mod.rs': 'mod delta;\nmod simd;\npub use delta::Thing;\n',
    'enc/delta.rs': 'use super::{simd::{decode, other}, Shared};\npub struct Thing;\npub(super) struct Walk;\n',
    'enc/simd.rs': '// use super::delta::Walk; in a comment is not an edge\nfn f() { let s = "super::delta::Walk"; super::delta::Walk; }\npub fn decode() {}\n',
  }, (dir) => {
    assert.deepEqual(names(dir, findCycle(moduleGraph(dir))), ['enc/delta.rs', 'enc/simd.rs', 'enc/delta.rs']);
  });
});

test('a shared item in the parent, or a file of its own, is no circle; nor are test modules and other crates', () => {
  withTree({
    'lib.rs': 'mod series;\nmod time;\npub use series::{decimate, lttb};\npub fn shared() {}\n',
    'time.rs': 'pub fn micros_to_millis() {}\n',
    'series/mod.rs': 'pub mod decimate;\npub mod lttb;\npub use decimate::decimate;\nstruct Kernel;\n',
    'series/decimate.rs': 'use super::lttb::lttb;\nuse crate::time::micros_to_millis;\nuse super::Kernel;\nuse std::ops::Range;\npub fn decimate() {}\n',
    'series/lttb.rs':
      'use crate::shared;\nuse crate::time::micros_to_millis;\npub fn lttb() {}\n#[cfg(test)]\nmod tests {\n    use super::super::decimate::decimate;\n    use crate::series::decimate::*;\n}\n',
  }, (dir) => {
    const graph = moduleGraph(dir);
    assert.equal(findCycle(graph), undefined);
    const edges = Object.fromEntries([...graph].map(([f, to]) => [f.slice(dir.length + 1), to.map((t) => t.slice(dir.length + 1)).sort()]));
    assert.deepEqual(edges, {
      'lib.rs': [],
      'time.rs': [],
      'series/mod.rs': [],
      'series/decimate.rs': ['series/lttb.rs', 'series/mod.rs', 'time.rs'],
      'series/lttb.rs': ['lib.rs', 'time.rs'],
    });
  });
});

test('use trees expand to every path; comments and strings are blanked in place', () => {
  assert.deepEqual(expandUse('super::{delta::{self, StopWalk}, Shared as S, x::*}'), ['super::delta', 'super::delta::StopWalk', 'super::Shared', 'super::x::*']);
  const text = 'a // b::c\n/* d::e */ "f::g" \'h\' r#"i::j"# k';
  const code = stripRust(text);
  assert.equal(code.length, text.length);
  assert.deepEqual(code.split(/\s+/).filter(Boolean), ['a', 'k']);
});
