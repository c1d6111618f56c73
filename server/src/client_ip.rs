//! The client's address. Behind a reverse proxy (needed for HTTPS: the server speaks plain
//! HTTP) every connection comes from the proxy, so per-client limits would put every player
//! in one bucket. The proxy's `X-Forwarded-For` (or `Forwarded`) is believed only when the
//! connection comes from an address in `--trusted-proxies`; otherwise anyone could claim any
//! address.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use ipnet::IpNet;

use crate::app::AppState;
use crate::error::ApiError;

pub fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    trusted.iter().any(|net| net.contains(&ip))
}

/// The addresses a request passed through, nearest last, as the proxies reported them.
fn forwarded_chain(headers: &HeaderMap) -> Vec<IpAddr> {
    let mut chain = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(text) = value.to_str() else { continue };
        chain.extend(
            text.split(',')
                .filter_map(|part| part.trim().parse::<IpAddr>().ok()),
        );
    }
    if chain.is_empty() {
        // RFC 7239: `Forwarded: for=192.0.2.60;proto=https, for="[2001:db8::1]:4711"`.
        for value in headers.get_all("forwarded") {
            let Ok(text) = value.to_str() else { continue };
            for element in text.split(',') {
                let Some(node) = element
                    .split(';')
                    .filter_map(|pair| pair.trim().split_once('='))
                    .find(|(k, _)| k.eq_ignore_ascii_case("for"))
                    .map(|(_, v)| v.trim_matches('"'))
                else {
                    continue;
                };
                let host = match node.strip_prefix('[') {
                    Some(v6) => v6.split(']').next().unwrap_or_default(),
                    None => node.split(':').next().unwrap_or_default(),
                };
                if let Ok(ip) = host.parse() {
                    chain.push(ip);
                }
            }
        }
    }
    chain
}

/// The client behind `peer`: `peer` itself unless it is a trusted proxy, in which case the
/// nearest address in the forwarded chain that is not a trusted proxy.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    if !is_trusted(peer, trusted) {
        return peer;
    }
    let chain = forwarded_chain(headers);
    chain
        .iter()
        .rev()
        .find(|ip| !is_trusted(**ip, trusted))
        .or(chain.first())
        .copied()
        .unwrap_or(peer)
}

/// Extractor: the client's address as `client_ip` finds it.
#[derive(Clone, Copy, Debug)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .ok_or_else(|| ApiError::BadRequest("no peer address".into()))?;
        Ok(ClientIp(client_ip(
            peer,
            &parts.headers,
            &state.config.trusted_proxies,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(name: &'static str, value: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_static(value));
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn forwarded_headers_from_an_untrusted_peer_are_ignored() {
        let h = headers("x-forwarded-for", "1.2.3.4");
        assert_eq!(client_ip(ip("203.0.113.9"), &h, &[]), ip("203.0.113.9"));
    }

    #[test]
    fn behind_a_trusted_proxy_the_nearest_untrusted_hop_is_the_client() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().expect("cidr")];
        // A client claiming 6.6.6.6, then the real client 198.51.100.7, then an inner proxy.
        let h = headers("x-forwarded-for", "6.6.6.6, 198.51.100.7, 10.0.0.3");
        assert_eq!(client_ip(ip("10.0.0.2"), &h, &trusted), ip("198.51.100.7"));
        // No header: the proxy itself.
        assert_eq!(
            client_ip(ip("10.0.0.2"), &HeaderMap::new(), &trusted),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn the_standard_forwarded_header_is_read_too() {
        let trusted: Vec<IpNet> = vec!["127.0.0.1/32".parse().expect("cidr")];
        let h = headers(
            "forwarded",
            "for=192.0.2.60;proto=https, for=\"[2001:db8::1]:4711\"",
        );
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &trusted), ip("2001:db8::1"));
    }
}
