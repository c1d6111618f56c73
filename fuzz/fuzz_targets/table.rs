//! The table driven by arbitrary command sequences, as a hostile client and the clock could
//! drive it: sit, leave, sit out and in, top up, deal, act (legal or not), time out, stand up
//! idle players. Nothing panics, and after every command the chips on the table are exactly
//! those brought in less those taken away (and the rake).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shared::hand::{Action, Event};
use shared::table::{Leave, PlayerId, Table, TableConfig};
use shared::{Deck, Stakes};

struct Model {
    table: Table,
    brought: u128,
    taken: u128,
}

impl Model {
    fn gone(&mut self, stack: u64) {
        self.taken += u128::from(stack);
    }

    fn after(&mut self, events: &[Event]) {
        for e in events {
            if let Event::RakeTaken { amount, .. } = e {
                self.taken += u128::from(*amount);
            }
        }
        if !self.table.hand_running() {
            for (_, seat) in self.table.take_leavers() {
                self.gone(seat.stack);
            }
        }
    }

    fn check(&self) {
        assert_eq!(
            u128::from(self.table.chips_on_table()) + self.taken,
            self.brought,
            "chips created or lost"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, ops)) = data.split_first() else {
        return;
    };
    let stakes = match head % 3 {
        0 => Stakes::fixed_limit(10),
        1 => Stakes::pot_limit(5, 10),
        _ => Stakes::no_limit(5, 10),
    };
    let seats = 2 + (head / 3) % 9;
    let Ok(table) = Table::new(TableConfig::new(stakes, seats)) else {
        return;
    };
    let mut m = Model {
        table,
        brought: 0,
        taken: 0,
    };
    let (min, max) = (m.table.config().min_buy_in, m.table.config().max_buy_in);
    for op in ops.chunks(3) {
        let [kind, a, b] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
        let seat = a % 11; // one past the last seat: refused, and checked to change nothing
        match kind % 10 {
            0 | 1 => {
                let buy_in = min + (max - min) * u64::from(b) / 255;
                if m.table
                    .sit(
                        seat,
                        PlayerId(u128::from(b % 13)),
                        format!("p{b}"),
                        buy_in,
                        a & 0x80 != 0,
                    )
                    .is_ok()
                {
                    m.brought += u128::from(buy_in);
                }
            }
            2 => {
                if let Ok((leave, events)) = m.table.leave(seat) {
                    if let Leave::Now(stack) = leave {
                        m.gone(stack);
                    }
                    m.after(&events);
                }
            }
            3 => {
                let _ = m.table.sit_out(seat);
            }
            4 => {
                let _ = m.table.sit_in(seat, b & 1 == 1);
            }
            5 => {
                let amount = u64::from(b) * 10;
                if m.table.top_up(seat, amount).is_ok() {
                    m.brought += u128::from(amount);
                }
            }
            6 => {
                let mut rng = ChaCha8Rng::seed_from_u64(u64::from(a) << 8 | u64::from(b));
                if let Ok(events) = m.table.start_hand(Deck::shuffled(&mut rng)) {
                    m.after(&events);
                }
            }
            7 | 8 => {
                let action = match b % 5 {
                    0 => Action::Fold,
                    1 => Action::Check,
                    2 => Action::Call,
                    3 => Action::RaiseTo {
                        to: m
                            .table
                            .hand()
                            .and_then(|h| h.legal())
                            .and_then(|l| l.raise.ok())
                            .map_or(u64::from(a), |r| r.min_to),
                    },
                    _ => Action::RaiseTo {
                        to: u64::from(a) * 7,
                    },
                };
                // Mostly the player to act; sometimes anyone, which must be refused.
                let actor = match m.table.hand().and_then(|h| h.to_act()) {
                    Some(to_act) if kind % 10 == 7 => to_act,
                    _ => seat,
                };
                if let Ok(events) = m.table.act(actor, action) {
                    m.after(&events);
                }
            }
            _ => {
                if a & 1 == 0 {
                    if let Some(to_act) = m.table.hand().and_then(|h| h.to_act())
                        && let Ok(events) = m.table.time_out(to_act)
                    {
                        m.after(&events);
                    }
                } else if !m.table.hand_running() {
                    for (_, s) in m.table.stand_up_idle() {
                        m.gone(s.stack);
                    }
                }
            }
        }
        m.check();
    }
});
