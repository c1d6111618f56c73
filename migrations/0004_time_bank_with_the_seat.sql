-- The time bank belongs to the seat (docs/rules.md §8.1): what is left of it survives a
-- restart. NULL means the table's full bank, untouched.
ALTER TABLE table_seats ADD COLUMN time_bank_ms integer CHECK (time_bank_ms >= 0);
