-- Seat moves in the hand writer's batches (group commit). A table's automatic top-ups and its
-- players' top-ups come about once a hand under load, each its own transaction and round trip
-- through the shared pool: as many commits as hands. This runs
-- `seat_move` (migration 0012) for each move in the order given, so every check and write is
-- the same, and returns one row per move in that order (r_index: the move's position, from 1).
CREATE FUNCTION seat_moves(
    p_kinds        text[],
    p_accounts     uuid[],
    p_tables       text[],
    p_seats        smallint[],
    p_chips        bigint[],
    p_keys         text[],
    p_fence_tables text[],
    p_fence_epochs bigint[]
) RETURNS TABLE (r_index integer, r_outcome text, r_chips bigint, r_balance bigint)
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. coalesce(cardinality(p_kinds), 0) LOOP
        RETURN QUERY SELECT i, m.r_outcome, m.r_chips, m.r_balance
            FROM seat_move(p_kinds[i], p_accounts[i], p_tables[i], p_seats[i], p_chips[i],
                           p_keys[i], p_fence_tables[i], p_fence_epochs[i]) AS m;
    END LOOP;
END;
$$;
