//! `--loop`: whole audit loops against the real server. For each scenario of
//! `loop_script.rs`, on its own pull request: the PR opens on a real commit, `/audit new`
//! starts its record, and each round the fixer pushes a new head (a commit changing the
//! files it touched, then `pull_request.synchronize`) and the auditor reports on it. Every
//! delivery is signed and sent as the load sends them; what is measured is read back from
//! the fake: the record, the check run's convergence line, the review threads, and the
//! calls each report made. `loop_table.rs` prints it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::fake::Fake;
use crate::loop_repo;
use crate::loop_report as report;
use crate::loop_script::Scenario;
use crate::loop_table::{Round, Run, Threads};
use crate::payloads::{comment_by, opened, synchronize, with_description, NEW};
use crate::server::{Answer, Cluster, Settings, Spread};

pub const REPO: &str = "octo-org/loop";
/// The run budget of a repository that sets none (docs/reference.md#keys-and-defaults);
/// the load's configuration raises it, so `/audit new` asks for it.
const DEFAULT_BUDGET: u32 = 3;

struct Sim<'a> {
    cluster: &'a Cluster,
    fake: &'a Fake,
    s: &'a Scenario,
}

impl Sim<'_> {
    fn id(&self, what: &str) -> String {
        format!("loop-{}-{what}", self.s.pr)
    }

    async fn send(&self, event: &str, id: &str, payload: &Value) -> Answer {
        self.cluster.deliver(0, event, id, payload).await
    }

    /// A comment by `login` with the PR's description as it is now.
    async fn comment(&self, id: &str, n: u64, body: &str, login: &str) -> Answer {
        let pr = self.s.pr;
        let mut payload = comment_by(REPO, pr, 7_000_000 + pr * 1000 + n, body, login);
        with_description(&mut payload, self.fake, REPO, pr);
        self.send("issue_comment", id, &payload).await
    }

    /// Opens the PR on a commit adding the scenario's files and starts its record.
    async fn start(&self) -> Result<String, String> {
        let head = loop_repo::open(self.fake, REPO, self.s.pr, self.s.files);
        let mut payload = opened(REPO, self.s.pr);
        payload["pull_request"]["head"]["sha"] = json!(head);
        let open = self.send("pull_request", &self.id("open"), &payload).await;
        let new = format!("{NEW} --budget {DEFAULT_BUDGET}");
        let new = self.comment(&self.id("new"), 0, &new, "alice").await;
        match (open.ok(), new.ok()) {
            (true, true) => Ok(head),
            _ => Err(format!("setup answered {} / {}", open.status, new.status)),
        }
    }

    /// The fixer's push before `round`: the answer to its `synchronize`, and the new head.
    async fn push(&self, round: u32) -> (Answer, String) {
        let paths = (self.s.fixer)(round);
        let (before, head) = loop_repo::push(self.fake, REPO, self.s.pr, &paths, round);
        let payload = synchronize(REPO, self.s.pr, &before, &head);
        let id = self.id(&format!("push-{round}"));
        (self.send("pull_request", &id, &payload).await, head)
    }

    /// One round: the push (from round 2), the report, and what they left.
    async fn round(&self, round: u32, head: &mut String) -> Round {
        let before = loop_repo::threads(self.fake, REPO, self.s.pr);
        let push = if round > 1 {
            let (answer, new) = self.push(round).await;
            *head = new;
            Some(answer.status)
        } else {
            None
        };
        let audit = crate::setup::audit_id_of(self.fake, REPO, self.s.pr);
        let invocation = format!("loop-{}-{round}", self.s.pr);
        let raised = (self.s.auditor)(round);
        let text = report::body(self.s.pr, head, &audit, &invocation, &raised);
        let id = self.id(&format!("report-{round}"));
        let refusals = self.refusals();
        let answer = self.comment(&id, u64::from(round), &text, "auditor").await;
        let record = loop_repo::record(self.fake, REPO, self.s.pr);
        let (conclusion, summary) = loop_repo::check_run(self.fake, REPO, head);
        let after = loop_repo::threads(self.fake, REPO, self.s.pr);
        let (writes, calls) = self.writes(&id);
        Round {
            number: round,
            head: head.clone(),
            push,
            report: answer.status,
            raised: raised.len(),
            writes,
            calls,
            state: record["audit_state"].as_str().unwrap_or("-").to_owned(),
            conclusion,
            convergence: loop_repo::convergence(&summary),
            refused: self
                .refusals()
                .get(refusals.len()..)
                .unwrap_or_default()
                .to_vec(),
            threads: Threads::between(&before, &after),
        }
    }

    /// The App's refusals on the PR so far.
    fn refusals(&self) -> Vec<String> {
        let data = self.fake.data.lock().unwrap();
        data.comments
            .iter()
            .filter(|c| c.repo == REPO && c.issue == self.s.pr)
            .filter(|c| c.body.starts_with("auditloop: refused"))
            .map(|c| c.body.lines().next().unwrap_or_default().to_owned())
            .collect()
    }

    /// The writes (their routes) and the count of calls delivery `id` made, as the load
    /// counts them.
    fn writes(&self, id: &str) -> (Vec<String>, usize) {
        let log = self.fake.log.lock().unwrap().clone();
        let calls = crate::call_log::by_delivery(&log);
        let of = calls.get(id).map_or(&[][..], Vec::as_slice);
        let writes = of.iter().filter(|c| !crate::fake::reads(&c.route));
        (writes.map(|c| c.route.clone()).collect(), of.len())
    }

    async fn run(&self) -> Run {
        let mut run = Run::new(self.s.name, self.s.pr);
        let mut head = match self.start().await {
            Ok(head) => head,
            Err(problem) => {
                run.problems.push(problem);
                return run;
            }
        };
        for round in 1..=self.s.rounds {
            let r = self.round(round, &mut head).await;
            let blocked = r.state == "blocked";
            run.rounds.push(r);
            if blocked {
                break;
            }
        }
        run.asked = self.asked();
        run.reviews = loop_repo::reviews(self.fake, REPO, self.s.pr);
        run.problems.extend(self.calls_answered(|s| s >= 500, true));
        // A 404 is how GitHub says a file or ref is absent: the app asks so, by design.
        run.notes = self.calls_answered(|s| (400..500).contains(&s), false);
        let ok = |s: u16| (200..300).contains(&s);
        for r in &run.rounds {
            if let Some(push) = r.push.filter(|s| !ok(*s)) {
                run.problems
                    .push(format!("push before round {} answered {push}", r.number));
            }
            if !ok(r.report) {
                run.problems.push(format!(
                    "report of round {} answered {}",
                    r.number, r.report
                ));
            }
            // The issue's bound: threads ride in the views' mutation, never a fourth write.
            if r.writes.len() > 3 {
                run.problems.push(format!(
                    "report of round {} made {} writes: {:?}",
                    r.number,
                    r.writes.len(),
                    r.writes
                ));
            }
        }
        run
    }

    /// The review mutations this scenario's deliveries sent, summed.
    fn asked(&self) -> Threads {
        let data = self.fake.data.lock().unwrap();
        let prefix = self.id("");
        let ours = data.review_calls.iter().filter(|c| {
            c.delivery
                .as_deref()
                .is_some_and(|d| d.starts_with(&prefix))
        });
        ours.fold(Threads::default(), |t, c| Threads {
            opened: t.opened + c.posted,
            resolved: t.resolved + c.resolved,
            reopened: t.reopened + c.reopened,
        })
    }

    /// This scenario's calls to GitHub answered with a status `wanted` picks, or served by
    /// no route; with `errors`, the GraphQL errors of its review mutations too.
    fn calls_answered(&self, wanted: fn(u16) -> bool, errors: bool) -> Vec<String> {
        let prefix = self.id("");
        let log = self.fake.log.lock().unwrap().clone();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for c in log.iter().filter(|c| wanted(c.status) || c.unserved) {
            let Some(d) = c.delivery.as_deref().filter(|d| d.starts_with(&prefix)) else {
                continue;
            };
            let what = format!("{d}: {} answered {}", c.route, c.status);
            *seen.entry(what).or_default() += 1;
        }
        let data = self.fake.data.lock().unwrap();
        for c in data.review_calls.iter().filter(|_| errors) {
            let Some(d) = c.delivery.as_deref().filter(|d| d.starts_with(&prefix)) else {
                continue;
            };
            for e in &c.errors {
                *seen
                    .entry(format!("{d}: review mutation error {e}"))
                    .or_default() += 1;
            }
        }
        seen.into_iter()
            .map(|(what, n)| {
                if n > 1 {
                    format!("{what} (×{n})")
                } else {
                    what
                }
            })
            .collect()
    }
}

/// Plays every scenario, one after the other, `latency` added to each GitHub call;
/// whether any went wrong.
pub async fn run(latency: Duration, cap: u32) -> bool {
    let (fake, api) = crate::setup::start_fake(latency).await;
    let settings = Settings {
        api,
        reconcile: 0,
        logs: crate::setup::logs_dir("loop"),
        write_gap_ms: 0,
        redeliver: 0,
    };
    let cluster = Cluster::start(settings, 1, Spread::Turns).await;
    let mut runs = Vec::new();
    for s in crate::loop_script::scenarios(cap) {
        let sim = Sim {
            cluster: &cluster,
            fake: &fake,
            s: &s,
        };
        runs.push(sim.run().await);
    }
    crate::loop_table::print(&runs, latency, cap);
    let said = server_said(&cluster);
    for (line, n) in &said {
        println!("\nserver log ({n}×): {line}");
    }
    runs.iter().any(|r| !r.problems.is_empty())
}

/// The servers' warnings and errors, without their time stamps, each with its count: the
/// run logs at `warn`, so anything there is worth reading.
fn server_said(cluster: &Cluster) -> BTreeMap<String, usize> {
    let mut said = BTreeMap::new();
    for path in cluster.logs() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for line in text
            .lines()
            .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        {
            let bare = line.split_once(' ').map_or(line, |(_, rest)| rest).trim();
            *said.entry(bare.to_owned()).or_default() += 1;
        }
    }
    said
}
