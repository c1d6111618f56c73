//! PHH files as `scoop replay` reads them: reading and replaying never panic, whatever the
//! file says, and a replayed hand creates no chip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::history::phh::{parse_file, replay};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(hands) = parse_file(text, "fuzz.phh") else {
        return;
    };
    for (_, hand) in hands {
        let Ok(hand) = hand else { continue };
        if let Ok(finishing) = replay(&hand) {
            let before: u128 = hand.starting_stacks.iter().map(|&c| u128::from(c)).sum();
            let after: u128 = finishing.iter().map(|&c| u128::from(c)).sum();
            assert!(
                after <= before,
                "a replay created chips: {before} -> {after}"
            );
        }
    }
});
