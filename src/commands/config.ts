import type { Command } from 'commander';
import { type ConfigEntry, loadConfigExplained } from '../config/index.js';
import { textTable } from '../util/text-table.js';
import { configFlags } from './context.js';

/** The source column: `default`, `file /srv/ohs/config/local.json`, `environment OHS_TOKEN`, `flag --db`. */
function sourceText(e: ConfigEntry): string {
  if (e.source === 'unset') return 'not set';
  if (e.source === 'default' || e.source === 'file') return `${e.source} ${e.from ?? ''}`.trimEnd();
  return e.from ?? e.source;
}

const valueText = (v: unknown) => (v === null ? 'null' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * `ohs config [--json]`: the effective configuration, each key with its value and where it came
 * from (default, file, environment, flag), as loadConfig merges it. A token is never printed:
 * only where it came from.
 */
export function registerConfig(program: Command): void {
  program
    .command('config')
    .description(
      'print the effective configuration: every key, its value and where it came from (default, file, environment, flag); a token is never printed',
    )
    .option('--json', 'the same as one JSON object for scripts: {"KEY": {"value", "source", "from"}}', false)
    .addHelpText('after', '\nExample: OHS_DB=/srv/ohs/ohs.sqlite ohs config --json')
    .action((flags: { json: boolean }, cmd: Command) => {
      const { entries, layers } = loadConfigExplained(configFlags(cmd));
      if (flags.json) {
        const out: Record<string, Omit<ConfigEntry, 'key'>> = {};
        for (const { key, ...rest } of entries) out[key] = rest;
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      const order = layers.map((l) => l.label).join(' < ');
      process.stdout.write(`configuration (later wins): ${order}\n`);
      process.stdout.write(
        textTable(
          ['key', 'value', 'source'],
          entries.map((e) => [e.key, e.source === 'unset' ? '-' : valueText(e.value), sourceText(e)]),
        ),
      );
    });
}
