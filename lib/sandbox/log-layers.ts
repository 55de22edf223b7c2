import { log } from "@/lib/log";
import type { SandboxLayers } from "./layers";

const logged = new WeakSet<SandboxLayers>();

/** Logs once per probe which outer layers are on, and each one that is off with why (a warning). */
export function logLayers(layers: SandboxLayers, cpuQuotaPercent: number): void {
  if (logged.has(layers)) return;
  logged.add(layers);
  const off = { ...layers.off };
  if (layers.cgroups.cpu && cpuQuotaPercent === 0)
    off.cpuCgroup = "SANDBOX_CPU_QUOTA_PERCENT is 0: only the CPU account bounds a process";
  for (const [layer, why] of Object.entries(off)) log.warn({ layer, why }, "sandbox layer off");
  log.info(
    {
      uid: layers.uid,
      runtime: layers.runtime.copiedTo ?? "checkout",
      prlimit: layers.prlimit,
      netns: layers.netns,
      pdeathsig: layers.pdeathsig,
      memoryCgroup: layers.cgroups.memory !== null,
      pidsCgroup: layers.cgroups.pids !== null,
      cpuCgroup:
        layers.cgroups.cpu && cpuQuotaPercent > 0
          ? { version: layers.cgroups.cpu.version, quotaPercent: cpuQuotaPercent }
          : null,
    },
    "sandbox layers",
  );
}
