/** API times are Unix seconds (CONTRACT 4). */
export const toUnix = (d: Date): number => Math.floor(d.getTime() / 1000);
