//! Webhook intake against its lower bound, in one run: the HMAC check and a JSON parse of
//! the same 14 KB `issue_comment` bytes alone, then the whole intake through the real
//! router (size bound, signature, typed parse, dedupe, the per-PR lock) with a handler
//! that does nothing. BENCHMARKS.md gives the ratio. Run with `cargo bench --bench intake`.

use std::sync::Arc;

use auditloop::metrics::Metrics;
use auditloop::server::signature::WebhookSecrets;
use auditloop::server::webhook::Delivery;
use auditloop::server::{router, signature, AppState, Handled, Handler, HandlerError};
use axum::body::Body;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tower::ServiceExt;

const SECRET: &str = "bench-webhook-secret";

struct Nothing;

#[async_trait::async_trait]
impl Handler for Nothing {
    async fn handle(&self, _: &Delivery) -> Result<Handled, HandlerError> {
        Ok(Handled::Ignored)
    }
}

fn payload() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/webhooks/issue_comment.created.json"
    );
    std::fs::read(path).expect("the issue_comment example payload")
}

fn intake(c: &mut Criterion) {
    let body = payload();
    let sig = signature::sign(SECRET.as_bytes(), &body);
    let secrets = WebhookSecrets::parse(SECRET).expect("secret");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let app = router(AppState::new(
        secrets.clone(),
        Metrics::new(),
        Arc::new(Nothing),
    ));
    let mut group = c.benchmark_group("intake");
    group.bench_function("hmac_and_json_parse_alone", |b| {
        b.iter(|| {
            assert!(signature::verify(&secrets, &sig, black_box(&body)));
            let v: serde_json::Value = serde_json::from_slice(black_box(&body)).unwrap();
            black_box(v)
        });
    });
    let mut n = 0u64;
    group.bench_function("whole_intake_through_the_router", |b| {
        b.iter(|| {
            n += 1;
            let request = http::Request::post("/webhook")
                .header("content-type", "application/json")
                .header("x-github-event", "issue_comment")
                .header("x-github-delivery", format!("bench-{n}"))
                .header("x-hub-signature-256", sig.as_str())
                .body(Body::from(body.clone()))
                .unwrap();
            let response = rt.block_on(app.clone().oneshot(request)).unwrap();
            assert_eq!(response.status(), 200);
            black_box(response)
        });
    });
    group.finish();
}

criterion_group!(benches, intake);
criterion_main!(benches);
