/** How the cluster test starts and stops its processes: plain processes or containers. */
export type ClusterEnv = Record<string, string>;

export interface ClusterRuntime {
  /** Starts app `index` with `env` (PORT is set by the caller); resolves once `/api/ready` answers 200. */
  startApp(index: number, env: ClusterEnv): Promise<{ url: string }>;
  /** Sends `signal` to app `index` and resolves with its exit code once it has exited. */
  stopApp(index: number, signal: "SIGTERM" | "SIGKILL"): Promise<number | null>;
  /** Starts the separate background worker with `env`. */
  startWorker(env: ClusterEnv): Promise<void>;
  /** Stops everything it started. */
  stopAll(): Promise<void>;
}
