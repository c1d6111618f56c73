-- The hand writer's batches (group commit) in one call for all their settlements. A batch used
-- to make one round trip per settlement inside its transaction; with the machine busy, each
-- round trip waited its turn for a core, and at 20,000 players a batch of 120 took most of a
-- second. This function runs `settle_hand` for each settlement in the order given, so every
-- check and write is the same; it returns their outcomes in that order.
--
-- The seats, accounts and stacks of all settlements are flattened into three arrays;
-- `p_counts[i]` is how many of them belong to settlement i.
CREATE FUNCTION settle_hands(
    p_hands     uuid[],
    p_tables    text[],
    p_rakes     bigint[],
    p_histories jsonb[],
    p_counts    integer[],
    p_seats     smallint[],
    p_accounts  uuid[],
    p_stacks    bigint[]
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    v_outcomes text[] := '{}';
    v_from     integer := 1;
    v_to       integer;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(p_hands), 0) LOOP
        v_to := v_from + p_counts[i] - 1;
        v_outcomes := v_outcomes || settle_hand(
            p_hands[i], p_tables[i],
            coalesce(p_seats[v_from:v_to], '{}'), coalesce(p_accounts[v_from:v_to], '{}'),
            coalesce(p_stacks[v_from:v_to], '{}'),
            p_rakes[i], p_histories[i]);
        v_from := v_to + 1;
    END LOOP;
    RETURN v_outcomes;
END;
$$;
