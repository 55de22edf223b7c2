export { enqueueJob, enqueueJobs, prepareJobs } from "./enqueue";
export { defineQueue, type JobRun } from "./queues";
export { notifyJobWorkers, startJobs } from "./start-jobs";
