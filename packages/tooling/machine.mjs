// What machine a benchmark ran on. Node only.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The CPU's name, with its family/model/stepping when Linux tells them (VMs often report just "AMD EPYC"). */
export function cpuName() {
  const name = cpus()[0]?.model.trim();
  if (!existsSync('/proc/cpuinfo')) return name;
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  const field = (key) => info.match(new RegExp(`^${key}\\s*: (.*)$`, 'm'))?.[1].trim();
  const [family, model, stepping] = ['cpu family', 'model', 'stepping'].map(field);
  return family === undefined ? name : `${name} (family ${family}, model ${model}, stepping ${stepping})`;
}

/** A command's standard output, or undefined when it cannot run or fails (a tool's version). */
export function commandOutput(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return result.status === 0 ? result.stdout : undefined;
}
