/**
 * NODE_OPTIONS for a CLI child that prints its own peak memory (kB) as it exits, `maxrss=N` on
 * stderr (process.resourceUsage, the kernel's ru_maxrss: robust under load, unlike sampling).
 */
export const PEAK_OPTIONS =
  "--import=data:text/javascript,process.on('exit',()=>process.stderr.write('\\nmaxrss='+process.resourceUsage().maxRSS+'\\n'))";

/** The child's peak memory in MB, from what PEAK_OPTIONS made it print. */
export function peakMb(stderr: string): number {
  const m = /maxrss=(\d+)/.exec(stderr);
  if (m === null) throw new Error(`no maxrss in ${stderr.slice(-500)}`);
  return Number(m[1]) / 1024;
}
