-- A run's claim row lives seconds and is rewritten as a whole `runs` row when the run ends, so its
-- WAL bought nothing: a crash of PostgreSQL could already lose it (claims commit without waiting
-- for the flush) and the run is then stored whole when it ends. Unlogged, PostgreSQL writes no WAL
-- for the insert, its two index entries and the delete of every run (a crash empties the table).
ALTER TABLE "active_runs" SET UNLOGGED;
