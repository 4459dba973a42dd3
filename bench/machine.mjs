// What machine a benchmark ran on. Node only.

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
