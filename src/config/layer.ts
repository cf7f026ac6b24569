/** One source of configuration values, named as the user would know it (a file, a variable, a flag). */
export interface ConfigLayer {
  label: string;
  data: { [key: string]: unknown };
}
