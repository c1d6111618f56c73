//! A WebSocket client for tests: connects like a browser, records every frame it receives.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use shared::protocol::{ClientMessage, ErrorCode, ServerMessage, TableView};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::helpers::TestApp;

pub type Stream = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub struct Client {
    pub ws: Stream,
    /// Every text frame received, as sent.
    pub frames: Vec<String>,
    /// The last view of the table.
    pub view: Option<Box<TableView>>,
    pub seq: u64,
    /// Each table's view as this client holds it, and the `seq` it is current at: what the
    /// server's changes apply to.
    views: HashMap<String, (u64, Box<TableView>)>,
}

/// Registers `name` and returns its session cookie (`scoop_session=...`).
pub async fn register(app: &TestApp, name: &str) -> String {
    let r = crate::helpers::plain_browser()
        .post(app.url("/api/register"))
        .json(&json!({"username": name, "password": "correct horse"}))
        .send()
        .await
        .expect("register");
    assert_eq!(r.status(), 201);
    r.headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("cookie")
        .to_string()
}

pub async fn connect(app: &TestApp, cookie: Option<&str>) -> Client {
    connect_with_origin(app, cookie, "http://localhost:8080")
        .await
        .expect("handshake")
}

pub async fn connect_with_origin(
    app: &TestApp,
    cookie: Option<&str>,
    origin: &str,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    let mut request = format!("ws://{}/ws", app.addr).into_client_request()?;
    if let Some(c) = cookie {
        request
            .headers_mut()
            .insert("cookie", HeaderValue::from_str(c).expect("cookie"));
    }
    request
        .headers_mut()
        .insert("origin", HeaderValue::from_str(origin).expect("origin"));
    let (ws, _) = tokio_tungstenite::connect_async(request).await?;
    Ok(Client {
        ws,
        frames: Vec::new(),
        view: None,
        seq: 0,
        views: HashMap::new(),
    })
}

impl Client {
    pub async fn send(&mut self, msg: &ClientMessage) {
        let text = serde_json::to_string(msg).expect("encode");
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    pub async fn send_raw(&mut self, msg: Message) {
        let _ = self.ws.send(msg).await;
    }

    /// The next server message, or None when the connection closed (10 s limit).
    pub async fn recv(&mut self) -> Option<ServerMessage> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
                .await
                .expect("a message within 10 s");
            match next {
                Some(Ok(Message::Text(t))) => return Some(self.take(t.as_str())),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Every message that arrives within `wait` (the connection may stay quiet).
    pub async fn drain(&mut self, wait: Duration) -> Vec<ServerMessage> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut got = Vec::new();
        while let Ok(Some(Ok(Message::Text(t)))) =
            tokio::time::timeout_at(deadline, self.ws.next()).await
        {
            got.push(self.take(t.as_str()));
        }
        got
    }

    /// Reads one frame as a browser would: a change is applied to the view this client
    /// holds of that table, and the message handed on carries the whole view that results
    /// (a change that does not apply fails the test: the server sent it to the wrong
    /// connection or measured it from the wrong view).
    fn take(&mut self, text: &str) -> ServerMessage {
        self.frames.push(text.to_string());
        let mut msg: ServerMessage = serde_json::from_str(text).expect("valid server message");
        let (table, seq, view) = match &mut msg {
            ServerMessage::Snapshot {
                table, seq, view, ..
            } => (table.clone(), *seq, view.clone()),
            ServerMessage::Events {
                table,
                seq,
                view,
                since,
                patch,
                ..
            } => {
                let full = match (view.as_ref(), patch.as_ref()) {
                    (Some(full), _) => full.clone(),
                    (None, Some(patch)) => {
                        let since = since.expect("a change says which view it starts from");
                        let (held, old) = self.views.get(table.as_str()).unwrap_or_else(|| {
                            panic!("a change to {table} before any snapshot: {text}")
                        });
                        assert!(
                            since <= *held,
                            "a change from seq {since} to a client holding {held}: {text}"
                        );
                        let mut next = old.clone();
                        (**patch)
                            .clone()
                            .apply(&mut next)
                            .unwrap_or_else(|e| panic!("{e}: {text}"));
                        next
                    }
                    (None, None) => panic!("events without a view or a change: {text}"),
                };
                *view = Some(full.clone());
                (table.clone(), *seq, full)
            }
            _ => return msg,
        };
        self.views.insert(table, (seq, view.clone()));
        self.view = Some(view);
        self.seq = seq;
        msg
    }

    /// Reads until `pred` holds for a message; returns it.
    pub async fn until(&mut self, mut pred: impl FnMut(&ServerMessage) -> bool) -> ServerMessage {
        for _ in 0..10_000 {
            match self.recv().await {
                Some(m) if pred(&m) => return m,
                Some(_) => {}
                None => panic!("connection closed while waiting"),
            }
        }
        panic!("waited too long");
    }

    /// The view this client holds once it is as `pred` wants: the one it holds now, or the
    /// first later one. (A change that changes nothing anyone sees is not sent, so what a test
    /// waits for may already have come with the last message.)
    pub async fn until_view(&mut self, mut pred: impl FnMut(&TableView) -> bool) -> Box<TableView> {
        if let Some(view) = self.view.as_ref().filter(|v| pred(v)) {
            return view.clone();
        }
        match self
            .until(|m| match m {
                ServerMessage::Events {
                    view: Some(view), ..
                }
                | ServerMessage::Snapshot { view, .. } => pred(view),
                _ => false,
            })
            .await
        {
            ServerMessage::Events {
                view: Some(view), ..
            }
            | ServerMessage::Snapshot { view, .. } => view,
            _ => unreachable!(),
        }
    }

    pub async fn watch(&mut self, table: &str) -> Box<TableView> {
        self.send(&ClientMessage::Watch {
            table: table.into(),
            invite: None,
        })
        .await;
        match self
            .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
            .await
        {
            ServerMessage::Snapshot { view, .. } => view,
            _ => unreachable!(),
        }
    }

    /// Reads until the server refuses something; returns its code and message.
    pub async fn error(&mut self) -> (ErrorCode, String) {
        match self
            .until(|m| matches!(m, ServerMessage::Error { .. }))
            .await
        {
            ServerMessage::Error { code, message, .. } => (code, message),
            _ => unreachable!(),
        }
    }

    /// Reads until a message shows a hand in play; returns that view.
    pub async fn hand_running(&mut self) -> Box<TableView> {
        match self
            .until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand_running))
            .await
        {
            ServerMessage::Events {
                view: Some(view), ..
            } => view,
            _ => unreachable!(),
        }
    }
}

#[tokio::test]
async fn a_socket_flooding_pings_and_binary_frames_is_closed_as_a_policy_violation() {
    let app = crate::helpers::spawn_app().await;
    let mut c = connect(&app, None).await;
    // The rate is 20 a second with bursts of 40: pings and binary frames count like text.
    for i in 0..400u32 {
        let frame = if i % 2 == 0 {
            Message::Ping(vec![1].into())
        } else {
            Message::Binary(vec![0; 8].into())
        };
        if c.ws.send(frame).await.is_err() {
            break;
        }
    }
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(frame) = c.ws.next().await {
            if let Ok(Message::Close(Some(close))) = frame {
                return Some(u16::from(close.code));
            }
        }
        None
    })
    .await
    .expect("closed within 10 s");
    assert_eq!(closed, Some(1008), "closed with the policy-violation code");
    let metrics = crate::edge::metrics(&app).await;
    assert!(
        metrics.contains("scoop_sockets_closed_for_abuse_total 1"),
        "{metrics}"
    );
    // Another socket is not affected.
    let mut other = connect(&app, None).await;
    other.send(&ClientMessage::Ping).await;
    assert!(matches!(other.recv().await, Some(ServerMessage::Pong)));
}
