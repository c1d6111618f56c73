-- Hand settlement in one statement. A table waits for its settlement before it broadcasts the
-- result, so each round trip to the database is on the table's critical path: settling six
-- players one statement at a time took about twenty of them. This function does the same work
-- in one call, which is also one transaction.
--
-- Returns 'applied'; 'replayed' when the hand is not running (already settled or voided: the
-- call changes nothing); 'unbalanced' when the seats do not hold exactly the stacks the hand
-- started from in total (stacks before = stacks after + rake), and then writes nothing.
CREATE FUNCTION settle_hand(
    p_hand     uuid,
    p_table    text,
    p_seats    smallint[],
    p_accounts uuid[],
    p_stacks   bigint[],
    p_rake     bigint,
    p_history  jsonb
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_status text;
    v_found  integer;
    v_before bigint;
    v_after  bigint;
BEGIN
    SELECT status INTO v_status FROM hands WHERE id = p_hand FOR UPDATE;
    IF v_status IS DISTINCT FROM 'running' THEN
        RETURN 'replayed';
    END IF;

    PERFORM 1 FROM table_seats WHERE table_id = p_table AND seat = ANY (p_seats) FOR UPDATE;
    SELECT count(*), coalesce(sum(s.stack), 0) INTO v_found, v_before
      FROM table_seats s
      JOIN unnest(p_seats, p_accounts) AS n(seat, account_id)
        ON s.seat = n.seat AND s.account_id = n.account_id
     WHERE s.table_id = p_table;
    SELECT coalesce(sum(x), 0) INTO v_after FROM unnest(p_stacks) AS x;
    IF v_found <> cardinality(p_seats) OR v_before <> v_after + p_rake THEN
        RETURN 'unbalanced';
    END IF;

    UPDATE hands SET status = 'complete', ended_at = now(), rake = p_rake, history = p_history
     WHERE id = p_hand;
    -- Before the seats change: net is the new stack minus the one the hand started from.
    UPDATE hand_players p SET net = n.stack - s.stack
      FROM unnest(p_seats, p_accounts, p_stacks) AS n(seat, account_id, stack)
      JOIN table_seats s ON s.table_id = p_table AND s.seat = n.seat
     WHERE p.hand_id = p_hand AND p.account_id = n.account_id;
    UPDATE table_seats s SET stack = n.stack
      FROM unnest(p_seats, p_stacks) AS n(seat, stack)
     WHERE s.table_id = p_table AND s.seat = n.seat;
    IF p_rake > 0 THEN
        INSERT INTO ledger (account_id, kind, amount, table_id, hand_id)
        VALUES (NULL, 'rake', p_rake, p_table, p_hand);
    END IF;
    RETURN 'applied';
END;
$$;
