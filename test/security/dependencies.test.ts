import { describe, expect, it } from 'vitest';
import { belowMinimum, compareVersions, installedPackages, MINIMUMS, nonRegistrySources } from './support/versions.js';

const installed = installedPackages();

describe('dependencies (RES-04): nothing below the minimum safe versions of security-bar.md section 4', () => {
  it('compares versions correctly', () => {
    expect(compareVersions('5.2.0', '5.10.0')).toBeLessThan(0);
    expect(compareVersions('8.4.0', '8.4.0')).toBe(0);
    expect(compareVersions('6.14.1', '6.14.0')).toBeGreaterThan(0);
    expect(compareVersions('4.0.0-beta.1', '4.0.0')).toBeLessThan(0);
    expect(compareVersions('v10.0.0', '9.9.9')).toBeGreaterThan(0);
  });

  it('reads the installed tree from npm ls --all --json', () => {
    expect(installed.find((p) => p.name === 'express')).toBeDefined();
    expect(installed.length).toBeGreaterThan(100);
  });

  it('has no installed copy below its minimum', () => {
    const checked = installed.filter((p) => MINIMUMS.some((m) => m.name === p.name));
    console.log(`DEPENDENCIES: ${installed.length} installed packages, ${checked.length} copies checked against ${new Set(MINIMUMS.map((m) => m.name)).size} minimums, ${belowMinimum(installed).length} below`);
    expect(belowMinimum(installed)).toEqual([]);
  });

  it('resolves every locked package from the npm registry (entries without `resolved` accepted)', () => {
    expect(nonRegistrySources()).toEqual([]);
  });

  it('would catch an old copy', () => {
    expect(belowMinimum([{ name: 'path-to-regexp', version: '8.2.0', path: 'x' }, { name: 'path-to-regexp', version: '0.1.7', path: 'y' },
      { name: 'jws', version: '3.2.2', path: 'z' }, { name: 'jws', version: '4.0.1', path: 'ok' }])).toHaveLength(3);
  });
});
