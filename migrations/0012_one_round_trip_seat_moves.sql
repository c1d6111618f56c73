-- Buy-ins, top-ups and cash-outs in one call. Each used to be eight round trips in one
-- transaction (begin, lease check, account lock, idempotency check, seat write, balance write,
-- ledger row, commit); under load every round trip waits its turn for a core, and the tables'
-- automatic top-ups come about once every two hands. The checks and writes are the same, in
-- the same order, so the same locks are taken in the same order as before.
--
-- p_kind is 'buy_in', 'top_up' or 'cash_out'. p_seat is the seat a buy-in takes, p_chips the
-- chips a buy-in or top-up moves (unused by a cash-out, which moves the whole stack).
-- p_fence_table and p_fence_epoch are the table lease the caller holds (NULL: no lease).
--
-- r_outcome: 'applied' (r_chips moved to or from the balance, r_balance after), 'replayed'
-- (the key was applied before; nothing changes), or a refusal that changes nothing:
-- 'fenced', 'no_account', 'insufficient' (r_balance is the balance), 'seat_taken',
-- 'already_seated', 'not_seated'.
CREATE FUNCTION seat_move(
    p_kind        text,
    p_account     uuid,
    p_table       text,
    p_seat        smallint,
    p_chips       bigint,
    p_key         text,
    p_fence_table text,
    p_fence_epoch bigint
) RETURNS TABLE (r_outcome text, r_chips bigint, r_balance bigint) LANGUAGE plpgsql AS $$
DECLARE
    v_balance bigint;
    v_seat    smallint;
    v_delta   bigint;
BEGIN
    IF p_fence_table IS NOT NULL THEN
        PERFORM 1 FROM table_leases
            WHERE table_id = p_fence_table AND epoch = p_fence_epoch FOR SHARE;
        IF NOT FOUND THEN
            RETURN QUERY SELECT 'fenced', NULL::bigint, NULL::bigint;
            RETURN;
        END IF;
    END IF;

    SELECT balance INTO v_balance FROM accounts WHERE id = p_account FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_account', NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    PERFORM 1 FROM ledger WHERE account_id = p_account AND idempotency_key = p_key;
    IF FOUND THEN
        RETURN QUERY SELECT 'replayed', NULL::bigint, NULL::bigint;
        RETURN;
    END IF;

    IF p_kind IN ('buy_in', 'top_up') AND v_balance < p_chips THEN
        RETURN QUERY SELECT 'insufficient', NULL::bigint, v_balance;
        RETURN;
    END IF;
    IF p_kind = 'buy_in' THEN
        INSERT INTO table_seats (table_id, seat, account_id, stack)
            VALUES (p_table, p_seat, p_account, p_chips)
            ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            IF EXISTS (SELECT 1 FROM table_seats
                       WHERE table_id = p_table AND account_id = p_account) THEN
                RETURN QUERY SELECT 'already_seated', NULL::bigint, NULL::bigint;
            ELSE
                RETURN QUERY SELECT 'seat_taken', NULL::bigint, NULL::bigint;
            END IF;
            RETURN;
        END IF;
        v_seat := p_seat;
        v_delta := -p_chips;
    ELSIF p_kind = 'top_up' THEN
        UPDATE table_seats SET stack = stack + p_chips
            WHERE table_id = p_table AND account_id = p_account
            RETURNING seat INTO v_seat;
        IF NOT FOUND THEN
            RETURN QUERY SELECT 'not_seated', NULL::bigint, NULL::bigint;
            RETURN;
        END IF;
        v_delta := -p_chips;
    ELSIF p_kind = 'cash_out' THEN
        DELETE FROM table_seats
            WHERE table_id = p_table AND account_id = p_account
            RETURNING seat, stack INTO v_seat, v_delta;
        IF NOT FOUND THEN
            RETURN QUERY SELECT 'not_seated', NULL::bigint, NULL::bigint;
            RETURN;
        END IF;
    ELSE
        RAISE EXCEPTION 'seat_move: unknown kind %', p_kind;
    END IF;

    UPDATE accounts SET balance = balance + v_delta WHERE id = p_account
        RETURNING balance INTO v_balance;
    INSERT INTO ledger (account_id, kind, amount, balance_after, table_id, seat, idempotency_key)
        VALUES (p_account, p_kind, v_delta, v_balance, p_table, v_seat, p_key);
    RETURN QUERY SELECT 'applied', v_delta, v_balance;
END;
$$;
