-- A run's claim (lib/runs/claim-thread.ts) inserts its active_runs row and reads the thread's newest
-- messages in one statement. That statement's snapshot is taken when it starts; when its insert
-- waits for the previous run's release (that run's persist transaction, which also stores its
-- answer) and then succeeds, a read in the same snapshot misses the answer. VOLATILE: each query of
-- the function takes a fresh snapshot (READ COMMITTED), after the insert it is called behind, so it
-- sees every message committed before the claim succeeded. plpgsql keeps its plan per session.
CREATE OR REPLACE FUNCTION claimed_history(p_thread_id text, p_after_seq integer, p_page integer, p_claimed boolean)
RETURNS TABLE (seq integer, role text, content jsonb, extra jsonb, tokens integer)
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  IF NOT p_claimed THEN
    RETURN;
  END IF;
  RETURN QUERY
    SELECT m.seq, m.role, m.content, m.extra, m.tokens FROM messages m
    WHERE m.thread_id = p_thread_id AND m.seq > p_after_seq
    ORDER BY m.seq DESC LIMIT p_page;
END
$$;
