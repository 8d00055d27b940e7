//! One async lock per key (a records branch): holders of the
//! same key run one after the other, different keys run concurrently. Idle entries are
//! dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

#[derive(Default)]
pub(crate) struct KeyedLocks {
    map: Mutex<HashMap<String, Arc<AsyncMutex<()>>>>,
}

pub(crate) struct KeyGuard<'a> {
    owner: &'a KeyedLocks,
    key: String,
    guard: Option<OwnedMutexGuard<()>>,
}

impl KeyedLocks {
    #[cfg(test)]
    pub(crate) async fn lock(&self, key: &str) -> KeyGuard<'_> {
        self.lock_noting_wait(key).await.0
    }

    /// [`KeyedLocks::lock`], also telling whether another holder had to be waited for.
    pub(crate) async fn lock_noting_wait(&self, key: &str) -> (KeyGuard<'_>, bool) {
        let lock = {
            let mut map = self
                .map
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            map.entry(key.to_owned()).or_default().clone()
        };
        let (guard, waited) = match lock.clone().try_lock_owned() {
            Ok(guard) => (guard, false),
            Err(_) => (lock.lock_owned().await, true),
        };
        let guard = KeyGuard {
            owner: self,
            key: key.to_owned(),
            guard: Some(guard),
        };
        (guard, waited)
    }

    /// Keys with a lock held or waited for.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}

impl Drop for KeyGuard<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut map = self
            .owner
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Only the map holds it now: nobody waits, so the entry can go.
        if map
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            map.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeyedLocks;

    #[tokio::test]
    async fn a_key_nobody_holds_leaves_the_map() {
        let locks = KeyedLocks::default();
        let first = locks.lock("a").await;
        let other = locks.lock("b").await;
        assert_eq!(locks.len(), 2);
        drop(first);
        assert_eq!(locks.len(), 1);
        drop(other);
        assert_eq!(locks.len(), 0);
    }
}
