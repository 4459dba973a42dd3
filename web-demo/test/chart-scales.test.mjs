// The chart's tick labels (src/axis.ts) and its grouping of series by scale
// (src/scales.ts), bundled by esbuild and run here in Node: plain functions,
// checked against values worked out by hand and against a brute-force
// reading of the grouping rule.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../src');

async function load(file) {
  const out = await build({ entryPoints: [join(SRC, file)], bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'silent' });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

const { tickLabels, valueText } = await load('axis.ts');
const { groupByScale, extentOf, SHARE } = await load('scales.ts');

test('tick labels: one SI prefix an axis, the decimals its step needs', () => {
  assert.deepEqual(tickLabels([0, 3e6, 6e6, 9e6], 3e6), ['0', '3M', '6M', '9M']);
  assert.deepEqual(tickLabels([9.9e6, 1e7, 1.01e7, 1.02e7], 1e5), ['9.9M', '10.0M', '10.1M', '10.2M']);
  assert.deepEqual(tickLabels([0, 250_000, 500_000], 250_000), ['0', '250k', '500k']);
  assert.deepEqual(tickLabels([0, 20, 40, 60, 80], 20), ['0', '20', '40', '60', '80']);
  assert.deepEqual(tickLabels([0, 2.5, 5, 7.5], 2.5), ['0', '2.5', '5.0', '7.5']);
  assert.deepEqual(tickLabels([-0.5, 0, 0.5], 0.5), ['-0.5', '0', '0.5']);
  assert.deepEqual(tickLabels([1000, 1500, 2000], 500), ['1000', '1500', '2000']);
  assert.deepEqual(tickLabels([1016, 1017.5, 1019], 1.5), ['1016.0', '1017.5', '1019.0']);
  assert.deepEqual(tickLabels([10_000, 20_000], 10_000), ['10k', '20k']);
  assert.deepEqual(tickLabels([0, 2e-6, 4e-6], 2e-6), ['0', '2e-6', '4e-6']);
  assert.deepEqual(tickLabels([0, 5e18, 1e19], 5e18), ['0', '5E', '10E']);
  assert.deepEqual(tickLabels([0, 1e22, 2e22], 1e22), ['0', '1e+22', '2e+22']);
  assert.deepEqual(tickLabels([-9e6, 0, 9e6], 9e6), ['-9M', '0', '9M']);
  assert.deepEqual(tickLabels([-2e307, 5e291, 2e307], 2e307), ['-2e+307', '0', '2e+307'], 'a rounding error off zero is zero');
  assert.deepEqual(tickLabels([-0.2, 2.7755575615628914e-17, 0.2], 0.2), ['-0.2', '0', '0.2']);
});

test('tick labels stay distinct for every step of uPlot\'s 1-2-2.5-5 ladder', () => {
  for (let exp = -8; exp <= 20; exp++) {
    for (const m of [1, 2, 2.5, 5]) {
      const step = m * 10 ** exp;
      for (const start of [0, 7 * step, -3 * step, 1234 * step]) {
        const ticks = Array.from({ length: 6 }, (_, i) => start + i * step);
        const labels = tickLabels(ticks, step);
        assert.equal(new Set(labels).size, labels.length, `step ${step} from ${start}: ${labels.join(' ')}`);
        assert.ok(labels.every((l) => l.length <= 9), `step ${step} from ${start}: ${labels.join(' ')} are short`);
      }
    }
  }
});

test('legend values: compact, exact enough, special values spelled', () => {
  assert.equal(valueText(9_873_000), '9.873M');
  assert.equal(valueText(10_175_432), '10.1754M');
  assert.equal(valueText(12.25), '12.25');
  assert.equal(valueText(0.0001234), '1.234e-4');
  assert.equal(valueText(null), '–');
  assert.equal(valueText(Infinity), '+Inf');
  assert.equal(valueText(-Infinity), '-Inf');
});

test('series group by scale: CPU percent, bytes near 1e7 and a load average each get a panel', () => {
  const cpu = extentOf([5, 40, 85]);
  const bytes = extentOf([9.9e6, 1.0e7, 1.03e7]);
  const load = extentOf([0.2, 3, 6]);
  const cpu2 = extentOf([10, 70, null, NaN]);
  assert.deepEqual(cpu2, { min: 10, max: 70 });
  assert.deepEqual(groupByScale([cpu, bytes, load, cpu2]), [[0, 3], [1], [2]]);
  assert.deepEqual(groupByScale([bytes, extentOf([NaN])]), [[0, 1]]);
  assert.deepEqual(groupByScale([extentOf([7, 7]), cpu]), [[0, 1]], 'a constant inside a range joins it');
  assert.deepEqual(groupByScale([]), []);
  assert.deepEqual(groupByScale([extentOf([-1.7e308, 1.7e308]), extentOf([50]), cpu]), [[0], [1, 2]], 'a constant does not join a range wider than float64 spans');
});

test('grouping rule: in every group each series spans at least 1/SHARE of the group, checked by brute force on random extents', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 300; round++) {
    const extents = Array.from({ length: 1 + Math.floor(random() * 12) }, () => {
      const magnitude = 10 ** Math.floor(random() * 10 - 3);
      const a = (random() - 0.3) * magnitude;
      return { min: a, max: a + random() * magnitude };
    });
    const groups = groupByScale(extents);
    assert.deepEqual(groups.flat().sort((a, b) => a - b), extents.map((_, i) => i), 'every series in exactly one group');
    for (const g of groups) {
      const min = Math.min(...g.map((i) => extents[i].min));
      const max = Math.max(...g.map((i) => extents[i].max));
      for (const i of g) {
        const span = extents[i].max - extents[i].min;
        if (span > 0) assert.ok(span * SHARE >= max - min - 1e-9 * Math.abs(max), `series ${i} spans ${span} of ${max - min}`);
      }
    }
  }
});
