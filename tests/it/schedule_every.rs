//! `schedule::every`, the schedule of the redelivery and reconcile sweeps: a run at once, then
//! one per interval, and a prompt stop on shutdown, whether it is waiting or mid-run.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use auditloop::schedule::every;
use tokio::time::{timeout, Instant};

/// Counts the runs; each takes `run` to finish.
fn counting(
    run: Duration,
) -> (
    Arc<AtomicUsize>,
    impl FnMut() -> futures::future::BoxFuture<'static, ()>,
) {
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = runs.clone();
    let f = move || {
        let seen = seen.clone();
        let run: futures::future::BoxFuture<'static, ()> = Box::pin(async move {
            seen.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(run).await;
        });
        run
    };
    (runs, f)
}

async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what} did not happen");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn it_runs_at_once_then_once_per_interval_of_at_least_a_second() {
    let (runs, f) = counting(Duration::ZERO);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let started = Instant::now();
    // A zero interval would panic in `tokio::time::interval`: it becomes a second.
    let task = every(Duration::ZERO, stopped, f);
    until("the first run", || runs.load(Ordering::SeqCst) >= 1).await;
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    until("the second run", || runs.load(Ordering::SeqCst) >= 2).await;
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    stop.send(true).unwrap();
    timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped")
        .expect("no panic");
}

#[tokio::test]
async fn shutdown_while_waiting_stops_it_before_the_next_run() {
    let (runs, f) = counting(Duration::ZERO);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let task = every(Duration::from_secs(3600), stopped, f);
    until("the first run", || runs.load(Ordering::SeqCst) == 1).await;
    stop.send(true).unwrap();
    timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped")
        .expect("no panic");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn shutdown_mid_run_drops_the_run_under_way() {
    /// Marks the run dropped, as a sweep's future is when shutdown interrupts it.
    struct Dropped(Arc<AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let (s, d) = (started.clone(), dropped.clone());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let task = every(Duration::from_secs(3600), stopped, move || {
        let (s, guard) = (s.clone(), Dropped(d.clone()));
        async move {
            let _guard = guard;
            s.store(true, Ordering::SeqCst);
            std::future::pending::<()>().await;
        }
    });
    until("the run", || started.load(Ordering::SeqCst)).await;
    assert!(!dropped.load(Ordering::SeqCst));
    stop.send(true).unwrap();
    timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped mid-run")
        .expect("no panic");
    assert!(dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_dropped_sender_stops_it_too() {
    let (runs, f) = counting(Duration::from_secs(3600));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let task = every(Duration::from_secs(3600), stopped, f);
    until("the first run", || runs.load(Ordering::SeqCst) == 1).await;
    drop(stop);
    timeout(Duration::from_secs(5), task)
        .await
        .expect("stopped")
        .expect("no panic");
}
