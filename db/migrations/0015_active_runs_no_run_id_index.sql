-- Every lookup of a claim by its run also names its thread (the primary key): persist, cancel,
-- release. The unique index on run_id only cost each run an index insert at its claim and a
-- delete's worth of index churn; the cancel poll scans this small table (one row per active run).
ALTER TABLE "active_runs" DROP CONSTRAINT "active_runs_run_id_key";
