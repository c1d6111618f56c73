//! The real `scoop` binary started as systemd starts services (1,024 open files, soft), under
//! the attacks that exhausted it before: connections that never finish their headers, and a
//! flood of WebSockets from one address. Everyone else must still be served throughout.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use server::tables::def::{self, TableDef};
use shared::protocol::{ClientMessage, ServerMessage};
use shared::rules::Structure;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::crash::{settings, start_command, wait_healthy};
use crate::helpers::{TestApp, fresh_database};
use crate::ws::{connect, register};

/// A TCP connection to `to` from the local address `from` (any 127.x address is this host).
async fn connect_from(from: &str, to: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(format!("{from}:0").parse().ok()?).ok()?;
    socket.connect(to).await.ok()
}

/// Whether the server has closed this connection (a read sees the end, or an error).
async fn closed(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 256];
    loop {
        match tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

async fn healthz(addr: SocketAddr) -> u16 {
    match reqwest::get(format!("http://{addr}/healthz")).await {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

#[tokio::test]
async fn slow_headers_and_a_websocket_flood_from_one_address_leave_everyone_else_served() {
    // This test holds thousands of sockets itself.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (pool, url) = fresh_database().await;
    let mut t = TableDef::new("t", "t", Structure::NoLimit, 5, 10);
    t.between_hands_ms = 50;
    t.run_out_street_ms = 0;
    def::upsert(&pool, &t).await.unwrap();
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        "ulimit -Sn 1024 && exec \"$0\" serve",
        env!("CARGO_BIN_EXE_scoop"),
    ]);
    settings(&mut cmd, &url)
        .env("SCOOP_HEADER_TIMEOUT_SECS", "2")
        .env("SCOOP_MAX_CONNECTIONS_PER_IP", "64")
        .env("SCOOP_MAX_WEBSOCKETS_PER_IP", "20");
    let (mut child, addr) = start_command(&mut cmd);
    wait_healthy(addr).await;
    let app = TestApp {
        addr,
        pool,
        state: None,
    };

    // Two players at the table, from 127.0.0.1.
    let (ann, bob) = (register(&app, "ann").await, register(&app, "bob").await);
    let mut a = connect(&app, Some(&ann)).await;
    let mut b = connect(&app, Some(&bob)).await;
    for (c, seat) in [(&mut a, 0u8), (&mut b, 1u8)] {
        c.send(&ClientMessage::Sit {
            table: "t".into(),
            seat,
            buy_in: 500,
            post_now: true,
            request_id: None,
        })
        .await;
    }

    // The attacker, 127.0.0.2: 2,000 connections, half silent, half sending part of a
    // request's headers and then a byte now and then.
    let mut held = Vec::new();
    for i in 0..2000 {
        if let Some(mut s) = connect_from("127.0.0.2", addr).await {
            if i % 2 == 1 {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await;
            }
            held.push(s);
        }
    }
    assert_eq!(healthz(addr).await, 200, "health answers during the attack");
    // A second attacker, 127.0.0.3: 200 WebSockets.
    let mut sockets = 0;
    let mut refused = 0;
    let mut flood = Vec::new();
    for _ in 0..200 {
        let mut request =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                format!("ws://{addr}/ws"),
            )
            .unwrap();
        request
            .headers_mut()
            .insert("origin", "http://localhost:8080".parse().unwrap());
        let Some(stream) = connect_from("127.0.0.3", addr).await else {
            refused += 1;
            continue;
        };
        match tokio_tungstenite::client_async(request, stream).await {
            Ok((ws, _)) => {
                sockets += 1;
                flood.push(ws);
            }
            Err(_) => refused += 1,
        }
    }
    assert_eq!(sockets, 20, "one address holds at most 20 WebSockets");
    assert_eq!(refused, 180);

    // Meanwhile the players play: whoever is to act checks or calls, and both see it.
    let view = a
        .until(|m| {
            matches!(m, ServerMessage::Events { view: Some(view), .. } | ServerMessage::Snapshot { view, .. }
                if view.hand_running && view.to_act.is_some())
        })
        .await;
    let (ServerMessage::Events {
        view: Some(view), ..
    }
    | ServerMessage::Snapshot { view, .. }) = view
    else {
        unreachable!()
    };
    let to_act = view.to_act.unwrap();
    let actor = if to_act == 0 { &mut a } else { &mut b };
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: shared::hand::Action::Call,
        })
        .await;
    actor
        .until(|m| {
            matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e|
                matches!(e, shared::protocol::ViewEvent::Public(shared::format::Event::Acted { seat, .. }) if *seat == to_act)))
        })
        .await;

    // The slow connections are all closed once their headers are overdue (2 s here), the
    // ones over the address's share at once.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut still_open = 0;
    for s in &mut held {
        if !closed(s).await {
            still_open += 1;
        }
    }
    assert_eq!(still_open, 0, "every slow connection was closed");
    assert_eq!(healthz(addr).await, 200);
    // The attacker's address is free again once its connections are gone.
    drop(held);
    drop(flood);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut again = connect_from("127.0.0.2", addr).await.expect("connect");
    again
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    again.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let _ = child.kill();
    let _ = child.wait();
}
