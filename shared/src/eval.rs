//! TEMPORARY brute-force evaluator with the agreed API; replaced by the fast one on merge.
use crate::card::Card;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HighValue(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LowValue(u8);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Showdown {
    pub high: HighValue,
    pub low: Option<LowValue>,
}

fn five(c: [Card; 5]) -> u32 {
    let mut r: Vec<u32> = c.iter().map(|c| c.rank().index() as u32).collect();
    let flush = c.iter().all(|x| x.suit() == c[0].suit());
    let mut cnt = [0u32; 13];
    for &x in &r {
        cnt[x as usize] += 1;
    }
    r.sort_by(|a, b| (cnt[*b as usize], *b).cmp(&(cnt[*a as usize], *a)));
    let mut u = r.clone();
    u.dedup();
    let straight_top = if u.len() == 5 && u[0] - u[4] == 4 {
        Some(u[0])
    } else if u == vec![12, 3, 2, 1, 0] {
        Some(3)
    } else {
        None
    };
    let counts: Vec<u32> = {
        let mut v: Vec<u32> = cnt.iter().copied().filter(|&x| x > 0).collect();
        v.sort_by(|a, b| b.cmp(a));
        v
    };
    let cat = match (straight_top, flush, counts.as_slice()) {
        (Some(_), true, _) => 8,
        (_, _, [4, 1]) => 7,
        (_, _, [3, 2]) => 6,
        (_, true, _) => 5,
        (Some(_), _, _) => 4,
        (_, _, [3, 1, 1]) => 3,
        (_, _, [2, 2, 1]) => 2,
        (_, _, [2, 1, 1, 1]) => 1,
        _ => 0,
    };
    let kick = match straight_top {
        Some(t) if cat == 8 || cat == 4 => vec![t, 0, 0, 0, 0],
        _ => r,
    };
    kick.iter().fold(cat, |a, &k| a * 16 + k)
}

pub fn evaluate(hole: &[Card; 4], board: &[Card; 5]) -> Showdown {
    let mut high = 0;
    let mut low: Option<u8> = None;
    for a in 0..4 {
        for b in a + 1..4 {
            for x in 0..5 {
                for y in x + 1..5 {
                    for z in y + 1..5 {
                        let h = [hole[a], hole[b], board[x], board[y], board[z]];
                        high = high.max(five(h));
                        let mut m = 0u8;
                        let mut ok = true;
                        for c in h {
                            let r = (c.rank().index() + 1) % 13;
                            if r > 7 || m & (1 << r) != 0 {
                                ok = false;
                            } else {
                                m |= 1 << r;
                            }
                        }
                        if ok {
                            let v = !m;
                            low = Some(low.map_or(v, |l| l.max(v)));
                        }
                    }
                }
            }
        }
    }
    Showdown {
        high: HighValue(high),
        low: low.map(LowValue),
    }
}
pub struct BoardEval([Card; 5]);
impl BoardEval {
    pub fn new(board: &[Card; 5]) -> Self {
        BoardEval(*board)
    }
    pub fn player(&self, hole: &[Card; 4]) -> Showdown {
        evaluate(hole, &self.0)
    }
}
pub struct MadeHand<V> {
    pub value: V,
    pub cards: [Card; 5],
}
impl HighValue {
    pub fn label(self) -> String {
        format!("{self:?}")
    }
}
impl LowValue {
    pub fn label(self) -> String {
        format!("{self:?}")
    }
}
pub fn best_hands(
    hole: &[Card; 4],
    board: &[Card; 5],
) -> (MadeHand<HighValue>, Option<MadeHand<LowValue>>) {
    let s = evaluate(hole, board);
    (
        MadeHand {
            value: s.high,
            cards: *board,
        },
        s.low.map(|v| MadeHand {
            value: v,
            cards: *board,
        }),
    )
}
