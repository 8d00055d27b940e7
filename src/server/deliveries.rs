//! The bounded set of delivery ids already handled. An id is marked only after its effects
//! are written, so a delivery that failed midway is handled again when redelivered.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use crate::ids::DeliveryId;

pub(crate) struct HandledDeliveries {
    capacity: usize,
    inner: Mutex<(HashSet<DeliveryId>, VecDeque<DeliveryId>)>,
}

impl HandledDeliveries {
    #[must_use]
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            inner: Mutex::new((HashSet::new(), VecDeque::new())),
        }
    }

    pub(crate) fn contains(&self, id: &DeliveryId) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            .contains(id)
    }

    /// Remembers `id`, forgetting the oldest when full.
    pub(crate) fn mark(&self, id: DeliveryId) {
        let mut guard = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (set, order) = &mut *guard;
        if set.insert(id.clone()) {
            order.push_back(id);
            while order.len() > self.capacity {
                if let Some(old) = order.pop_front() {
                    set.remove(&old);
                }
            }
        }
    }
}
