//! What a load bot reads of a server message. The protocol's own types are internally tagged
//! (`"type"`, `"event"`) and `ViewEvent` is untagged, which serde reads by first copying the
//! whole message, then each event, into a buffer of its own: a sixth of the bots' CPU under
//! load. A bot needs the view (snapshot or patch) and two kinds of event, so it reads plain
//! structs that pick those fields out and skip the rest.

use serde::Deserialize;
use shared::patch::ViewPatch;
use shared::protocol::{ErrorCode, TableView};

/// A server message, as far as a bot cares.
#[derive(Debug, Deserialize)]
pub(super) struct Frame {
    #[serde(rename = "type")]
    pub kind: Kind,
    #[serde(default)]
    pub seq: u64,
    pub view: Option<Box<TableView>>,
    pub since: Option<u64>,
    pub patch: Option<Box<ViewPatch>>,
    #[serde(default)]
    pub events: Vec<Happened>,
    pub code: Option<ErrorCode>,
    #[serde(default)]
    pub message: String,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Kind {
    Snapshot,
    Events,
    Error,
    #[serde(other)]
    Other,
}

/// An event of an `events` message: which kind, and whose.
#[derive(Debug, Deserialize)]
pub(super) struct Happened {
    pub event: EventKind,
    pub seat: Option<u8>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum EventKind {
    Acted,
    HandEnded,
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::format::{Acted, Event};
    use shared::protocol::{ServerMessage, ViewEvent};

    #[test]
    fn a_frame_reads_what_the_server_writes() {
        let sent = ServerMessage::Events {
            table: "t".into(),
            seq: 7,
            events: vec![
                ViewEvent::Public(Event::Acted {
                    seat: 3,
                    action: Acted::Fold,
                    stack: 90,
                    all_in: false,
                }),
                ViewEvent::Dealt(shared::protocol::Dealt {
                    seat: 2,
                    cards: None,
                }),
            ],
            view: None,
            since: Some(6),
            patch: Some(Box::default()),
            clock: None,
        };
        let frame: Frame = serde_json::from_str(&serde_json::to_string(&sent).unwrap()).unwrap();
        assert_eq!(frame.kind, Kind::Events);
        assert_eq!((frame.seq, frame.since), (7, Some(6)));
        assert!(frame.patch.is_some() && frame.view.is_none());
        let kinds: Vec<_> = frame.events.iter().map(|e| (&e.event, e.seat)).collect();
        assert_eq!(
            kinds,
            [(&EventKind::Acted, Some(3)), (&EventKind::Other, Some(2))]
        );
    }

    #[test]
    fn other_messages_read_as_other() {
        let sent = ServerMessage::Chat {
            table: "t".into(),
            seq: 3,
            from: "ann".into(),
            text: "hi".into(),
            at: None,
        };
        let frame: Frame = serde_json::from_str(&serde_json::to_string(&sent).unwrap()).unwrap();
        assert_eq!(frame.kind, Kind::Other);
        let error = ServerMessage::Error {
            code: ErrorCode::Seat,
            message: "taken".into(),
            table: None,
        };
        let frame: Frame = serde_json::from_str(&serde_json::to_string(&error).unwrap()).unwrap();
        assert_eq!(
            (frame.kind, frame.code),
            (Kind::Error, Some(ErrorCode::Seat))
        );
    }
}
