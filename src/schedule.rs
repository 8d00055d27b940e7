//! The schedule both background sweeps keep (redelivery, reconcile): one run at once, since
//! things may have fallen behind while the app was down, then one every interval, until
//! shutdown.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

/// Runs `f` at once, then once per `interval` (at least a second; a run that overruns
/// delays the next rather than bunching them), never two at a time, until `shutdown`
/// turns true or its sender is dropped. A run under way then is dropped at its next await.
pub fn every<F, Fut>(
    interval: Duration,
    mut shutdown: watch::Receiver<bool>,
    mut f: F,
) -> JoinHandle<()>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    // `tokio::time::interval` rejects a zero period; callers disable a sweep by not
    // starting it.
    let interval = interval.max(Duration::from_secs(1));
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            // `wait_for` also returns once the sender is gone, which stops the sweep too.
            tokio::select! {
                _ = ticker.tick() => {}
                _ = shutdown.wait_for(|stop| *stop) => break,
            }
            tokio::select! {
                () = f() => {}
                _ = shutdown.wait_for(|stop| *stop) => break,
            }
        }
    })
}
