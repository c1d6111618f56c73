//! Accepting connections with bounds a client cannot push past: how many connections the
//! process holds, how many one address holds, and how long a connection may take to send a
//! request's headers (which also ends idle keep-alive connections). The protocol is hyper's
//! HTTP/1 with upgrades; this module only decides who gets a connection and when it ends.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt;

use crate::metrics::Metrics;

#[derive(Clone, Debug)]
pub struct Limits {
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Connections the process holds at once (kept below its file descriptor limit).
    pub max_connections: usize,
    /// Connections one client address holds at once (trusted proxies are exempt: they carry
    /// many clients).
    pub per_ip: usize,
    /// Time to send a request's headers, and the longest an idle keep-alive connection stays.
    pub header_timeout: Duration,
}

/// Counts held per client address, with a guard that gives the place back when dropped.
pub struct PerIp {
    max: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

pub struct Slot {
    owner: Arc<PerIp>,
    ip: IpAddr,
}

impl PerIp {
    pub fn new(max: usize) -> Arc<PerIp> {
        Arc::new(PerIp {
            max,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// A place for `ip`, or None when it already holds `max`.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let mut held = match self.held.lock() {
            Ok(h) => h,
            Err(p) => p.into_inner(),
        };
        let n = held.entry(ip).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(Slot {
            owner: self.clone(),
            ip,
        })
    }

    pub fn held(&self, ip: IpAddr) -> usize {
        match self.held.lock() {
            Ok(h) => h.get(&ip).copied().unwrap_or(0),
            Err(p) => p.into_inner().get(&ip).copied().unwrap_or(0),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = match self.owner.held.lock() {
            Ok(h) => h,
            Err(p) => p.into_inner(),
        };
        if let Some(n) = held.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// A connection's places under the caps, in each request's extensions: a WebSocket takes a
/// clone into its own task, so the socket still counts once the HTTP connection has handed
/// it over.
#[derive(Clone)]
pub struct Held(#[allow(dead_code)] Arc<(OwnedSemaphorePermit, Option<Slot>)>);

/// Raises the soft limit on open files to the hard one (systemd gives services 1024 soft,
/// far more hard), and returns the soft limit now in force.
pub fn raise_open_files_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(error = %e, "could not read or raise the open files limit");
            1024
        }
    }
}

/// Connections the kernel completes and holds until the accept loop takes them. Tokio's
/// `TcpListener::bind` asks for 1,024: when 10,000 clients connected within a second (a
/// restart's reconnections, the load test's start), thousands overflowed it, waited out SYN
/// retries, and some were reset. The kernel gives at most `net.core.somaxconn` (4,096 by
/// default since Linux 5.4), so raising that raises this.
pub const ACCEPT_BACKLOG: u32 = 8192;

/// A listener on `addr` with [`ACCEPT_BACKLOG`].
pub fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    // As std does on Unix: a restarted server binds while its old connections are in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(ACCEPT_BACKLOG)
}

/// The connection cap for a process allowed `open_files` descriptors: room is kept for the
/// database pool, log files and the listener.
pub fn connection_cap(open_files: u64, wanted: Option<usize>) -> usize {
    let room = usize::try_from(open_files.saturating_sub(128))
        .unwrap_or(usize::MAX)
        .max(16);
    wanted.map_or(room, |w| w.min(room))
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves, then lets the
/// connections finish what they are doing (at most `grace`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let total = Arc::new(Semaphore::new(limits.max_connections));
    let per_ip = PerIp::new(limits.per_ip);
    // Each connection task holds a receiver; the sender's `closed()` says all have ended.
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: wait a little
                    // rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Over a cap, the connection is closed at once: it costs a descriptor for no time.
        let Ok(permit) = total.clone().try_acquire_owned() else {
            metrics.connections_refused.inc();
            continue;
        };
        let slot = if crate::client_ip::is_trusted(peer.ip(), &limits.trusted_proxies) {
            None
        } else {
            let Some(slot) = per_ip.admit(peer.ip()) else {
                metrics.connections_refused.inc();
                continue;
            };
            Some(slot)
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            peer,
            router.clone(),
            limits.header_timeout,
            stopping.clone(),
            (permit, slot),
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    drop(stopping);
    if tokio::time::timeout(grace, stop.closed()).await.is_err() {
        tracing::warn!("some connections were still open at shutdown");
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    header_timeout: Duration,
    mut stopping: watch::Receiver<bool>,
    held: (OwnedSemaphorePermit, Option<Slot>),
) {
    let held = Held(Arc::new(held));
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(held.clone());
        let router = router.clone();
        async move {
            let response = router.oneshot(request.map(Body::new)).await;
            Ok::<_, Infallible>(response.unwrap_or_else(|never| match never {}))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let mut conn = pin!(
        builder
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades()
    );
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::trace!(error = %e, "connection ended");
                }
                break;
            }
            changed = stopping.changed() => {
                conn.as_mut().graceful_shutdown();
                if changed.is_err() {
                    // The server is gone; nothing more to wait for but the connection.
                    let _ = conn.as_mut().await;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the kernel allows a listen backlog here (`net.core.somaxconn`).
    fn somaxconn() -> Option<usize> {
        std::fs::read_to_string("/proc/sys/net/core/somaxconn")
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    #[tokio::test]
    async fn a_burst_of_connections_past_tokios_default_backlog_is_held_until_accepted() {
        // Past tokio's 1,024, within what the kernel allows (4,096 by default).
        let burst = somaxconn().unwrap_or(0).min(2_000);
        assert!(
            burst > 1_100,
            "net.core.somaxconn is {burst}: too small to hold a burst of reconnections"
        );
        raise_open_files_limit();
        let listener = bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
        let addr = listener.local_addr().expect("addr");
        // Nobody accepts: every connection must wait in the backlog. One that overflowed it
        // would get no answer to its SYN for a second or more.
        let mut held = Vec::with_capacity(burst);
        for n in 0..burst {
            let connect = tokio::net::TcpStream::connect(addr);
            match tokio::time::timeout(Duration::from_millis(500), connect).await {
                Ok(Ok(stream)) => held.push(stream),
                Ok(Err(e)) => panic!("connection {n} of {burst} failed: {e}"),
                Err(_) => panic!("connection {n} of {burst} was not answered: the backlog is full"),
            }
        }
        let (first, _) = listener.accept().await.expect("accept");
        assert_eq!(first.peer_addr().ok(), held[0].local_addr().ok());
    }

    #[test]
    fn an_address_holds_at_most_its_share_and_gets_it_back_on_close() {
        let per_ip = PerIp::new(2);
        let a: IpAddr = "127.0.0.2".parse().expect("ip");
        let b: IpAddr = "127.0.0.3".parse().expect("ip");
        let first = per_ip.admit(a);
        let second = per_ip.admit(a);
        assert!(first.is_some() && second.is_some());
        assert!(per_ip.admit(a).is_none(), "a third is refused");
        assert!(per_ip.admit(b).is_some(), "another address is not affected");
        drop(first);
        assert_eq!(per_ip.held(a), 1);
        assert!(per_ip.admit(a).is_some());
    }

    #[test]
    fn the_connection_cap_leaves_room_below_the_descriptor_limit() {
        assert_eq!(connection_cap(1024, None), 896);
        assert_eq!(connection_cap(1024, Some(500)), 500);
        assert_eq!(connection_cap(1024, Some(5000)), 896);
        assert_eq!(connection_cap(100, None), 16);
    }
}
