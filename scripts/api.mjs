#!/usr/bin/env node
// The npm package's public surface, recorded: one API Extractor report
// (`packages/mebo/api/<entry>.api.md`) per entry point, made from the build's
// `dist/*.d.ts` (what a user's TypeScript sees), so that a change to an
// exported type or function is a diff a reviewer reads.
//
//   npm run api                     write the reports (after `npm run build`)
//   node scripts/api.mjs --check    compare them with the recorded ones (npm test)

import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const PACKAGE = join(ROOT, 'packages/mebo');
const RECORDED = join(PACKAGE, 'api');

/** Each entry point of `exports` with types, and the declaration file that is its surface. */
export const ENTRIES = {
  mebo: 'dist/index.d.ts',
  'mebo-decode': 'dist/decode.d.ts',
  'mebo-worker': 'dist/worker/pool.d.ts',
  'mebo-arrow': 'dist/arrow.d.ts',
};

/** The reports of every entry, as `{ name: text }`, made from the current `dist/`. */
export async function reports() {
  const { Extractor, ExtractorConfig } = await import('@microsoft/api-extractor');
  const out = mkdtempSync(join(tmpdir(), 'mebo-api-'));
  const texts = {};
  try {
    for (const [name, entry] of Object.entries(ENTRIES)) {
      const file = join(PACKAGE, entry);
      if (!existsSync(file)) throw new Error(`api: ${entry} is missing: run npm run build first`);
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: PACKAGE,
          mainEntryPointFilePath: file,
          compiler: { overrideTsconfig: { compilerOptions: { strict: true, skipLibCheck: true, types: [] }, files: [file] } },
          apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder: out, reportTempFolder: join(out, 'temp') },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          // The report records the surface, not TSDoc style: no release tags
          // are used, and the doc comments are TypeDoc's.
          messages: {
            compilerMessageReporting: { default: { logLevel: 'warning' } },
            extractorMessageReporting: { default: { logLevel: 'none' } },
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
        },
        configObjectFullPath: undefined,
        packageJsonFullPath: join(PACKAGE, 'package.json'),
      });
      const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false, messageCallback: quiet });
      if (!result.succeeded) throw new Error(`api: API Extractor failed on ${entry} (${result.errorCount} errors)`);
      texts[name] = readFileSync(join(out, `${name}.api.md`), 'utf8');
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return texts;
}

/**
 * API Extractor's progress lines are noise here, and so is its note that a
 * report was new (every report is, in the temporary folder); its warnings
 * and errors are not.
 */
function quiet(message) {
  const noise = message.logLevel === 'info' || message.logLevel === 'verbose' || message.messageId === 'console-api-report-created';
  if (noise) message.handled = true;
}

/** The entries whose recorded report differs from `texts` (or is missing, or no longer made). */
export function differences(texts, recordedDir) {
  const recorded = existsSync(recordedDir) ? readdirSync(recordedDir).filter((f) => f.endsWith('.api.md')) : [];
  const changed = [];
  for (const [name, text] of Object.entries(texts)) {
    const path = join(recordedDir, `${name}.api.md`);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) changed.push(`${name}.api.md`);
  }
  for (const file of recorded) if (!(file.replace(/\.api\.md$/, '') in texts)) changed.push(file);
  return changed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const texts = await reports();
  if (process.argv.includes('--check')) {
    const changed = differences(texts, RECORDED);
    if (changed.length) {
      console.error(`api: the public surface of mebo changed (${changed.join(', ')} in packages/mebo/api/):`);
      console.error('run npm run api and review the diff (and note it in CHANGELOG.md)');
      process.exit(1);
    }
    console.log(`api: the public surface matches packages/mebo/api/ (${Object.keys(texts).length} entries)`);
  } else {
    mkdirSync(RECORDED, { recursive: true });
    for (const file of readdirSync(RECORDED)) if (file.endsWith('.api.md')) rmSync(join(RECORDED, file));
    for (const [name, text] of Object.entries(texts)) writeFileSync(join(RECORDED, `${name}.api.md`), text);
    console.log(`api: wrote ${Object.keys(texts).length} reports to packages/mebo/api/`);
  }
}
