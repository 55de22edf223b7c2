export { enqueueJob, enqueueJobs, prepareJobs } from "./enqueue";
export { defineQueue, type JobRun, type QueueDefinition } from "./queues";
export { notifyJobWorkers, startJobs, wakeJobWorkers } from "./start-jobs";
