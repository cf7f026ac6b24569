/** Where a layer's values come from, as `ohs config` names it. */
export type ConfigSourceKind = 'default' | 'file' | 'environment' | 'flag';

/** One source of configuration values, named as the user would know it (a file, a variable, a flag). */
export interface ConfigLayer {
  kind: ConfigSourceKind;
  label: string;
  data: { [key: string]: unknown };
}
