//! Anything a socket can send: decoding never panics, and what decodes encodes back to JSON
//! that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::protocol::ClientMessage;

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = serde_json::from_slice::<ClientMessage>(data) {
        let text = serde_json::to_string(&msg).expect("a decoded message encodes");
        let back: ClientMessage = serde_json::from_str(&text).expect("and decodes again");
        assert_eq!(back, msg);
    }
});
