import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { createClient, type ProbeFindings, probeService, verifyService } from '../api/index.js';
import { localConfigPath, readConfigFile } from '../config/index.js';
import { writeFileSafelySync } from '../util/safe-file.js';
import { textTable } from '../util/text-table.js';
import { commandContext, mirrorMayExist, shareRateBudget } from './context.js';

/** `ohs probe [--write]`: how the live service reads each gap of the interface. */
export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description(
      "ask the service (read-only) how it fills the interface's gaps; --write saves it to config/local.json",
    )
    .option('--write', 'save the findings to config/local.json (or the --config file)', false)
    .option('--json', 'print the findings as JSON', false)
    .addHelpText('after', '\nExample: OHS_TOKEN=... ohs probe --base-url https://ohs.example.com --write')
    .action(async (flags: { write: boolean; json: boolean }, cmd: Command) => {
      const ctx = commandContext(cmd);
      const { config, logger } = ctx;
      const client = createClient(config, logger);
      await verifyService(client).catch(async (err: unknown) => {
        await client.close();
        throw err;
      });
      // Within the budget of the processes on the mirror, if there is one (probe never creates a
      // SQLite file).
      const mirror = mirrorMayExist(config.db) ? await ctx.mirror('fill') : undefined;
      if (mirror !== undefined) shareRateBudget(client, mirror);
      let findings: ProbeFindings;
      try {
        findings = await probeService(client);
      } finally {
        await client.close();
        await mirror?.close();
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
      else process.stdout.write(describe(findings, config.baseUrl));
      if (flags.write) {
        const globals = cmd.optsWithGlobals<{ config?: string }>();
        const file = globals.config !== undefined ? resolve(globals.config) : localConfigPath();
        saveFindings(file, findings, config.baseUrl);
        process.stdout.write(`saved to ${file}\n`);
      }
    });
}

function describe(f: ProbeFindings, baseUrl: string): string {
  const rows: [string, string][] = [
    ['service', baseUrl],
    [
      'list envelope',
      f.envelope === 'array'
        ? 'bare array'
        : `object, records under '${f.envelopeKey}', total under '${f.totalKey ?? '(none)'}'`,
    ],
    ['page size cap', f.pageCap > 0 ? `${f.pageCap} (larger pageSize is cut silently)` : 'none seen'],
    ['order without sortBy', f.defaultOrder],
    ['default response omits', f.defaultOmits.length > 0 ? f.defaultOmits.join(', ') : 'nothing'],
    ['field-selection parameter', f.fieldsParam ?? 'not found (the default response is used)'],
    ['string operators', f.stringCase],
    [
      'listContains',
      f.listContains === 'any-of'
        ? 'any of the listed values'
        : `${f.listContains} (the sync does not delete on its evidence: it asks id by id)`,
    ],
  ];
  return textTable(undefined, rows);
}

/** Merges the findings into a JSON config file, written whole through a temporary file (its comments are not kept). */
export function saveFindings(file: string, f: ProbeFindings, baseUrl: string): void {
  // Read as the loader reads it (`//` comments allowed); written back as plain JSON.
  const current: Record<string, unknown> = existsSync(file) ? readConfigFile(file) : {};
  const api = { ...((current.api as Record<string, unknown> | undefined) ?? {}) };
  if (f.fieldsParam !== undefined) api.fieldsParam = f.fieldsParam;
  api.pageCap = f.pageCap;
  if (f.envelopeKey !== undefined) api.envelopeKey = f.envelopeKey;
  else delete api.envelopeKey;
  if (f.totalKey !== undefined) api.totalKey = f.totalKey;
  else delete api.totalKey;
  const next = {
    ...current,
    api,
    service: {
      probedAt: new Date().toISOString(),
      baseUrl,
      envelope: f.envelope,
      defaultOrder: f.defaultOrder,
      defaultOmits: f.defaultOmits,
      stringCase: f.stringCase,
      listContains: f.listContains,
    },
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSafelySync(file, `${JSON.stringify(next, null, 2)}\n`, 0o600);
}
