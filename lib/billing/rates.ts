import { USAGE_SOURCE, type UsageSource } from "@/db/enums";

/** SPEC §2: voice_call 1.0 O₮/s, whisper 0.1 O₮/s, in µO₮ per second. */
const USAGE_RATE_MICRO_PER_S: Record<UsageSource, number> = {
  [USAGE_SOURCE.voice_call]: 1_000_000,
  [USAGE_SOURCE.whisper]: 100_000,
};

/** Cost of a usage event in whole µO₮, rounded half up (durations are decimal seconds). */
export function usageCostMicro(source: UsageSource, durationS: number): number {
  return Math.round(durationS * USAGE_RATE_MICRO_PER_S[source]);
}
