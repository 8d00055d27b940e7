//! What the chaos soak sends: a mix of the commands a PR sees (reports, waivers, vetoes,
//! dispositions, status, gate, baselines) and pushes, drawn from a seeded generator.

use rand::Rng;

/// What one delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Report,
    Waive,
    Veto,
    Dispose,
    Status,
    Gate,
    Baseline,
    /// `pull_request.synchronize` with a new head.
    Push,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Report => "report",
            Kind::Waive => "waive",
            Kind::Veto => "veto",
            Kind::Dispose => "dispose",
            Kind::Status => "status",
            Kind::Gate => "gate",
            Kind::Baseline => "baseline",
            Kind::Push => "push",
        }
    }

    /// Whether carrying it out writes one records commit (a push or a baseline may find
    /// nothing to change; `status` and `gate` never write).
    pub fn must_record(self) -> bool {
        matches!(
            self,
            Kind::Report | Kind::Waive | Kind::Veto | Kind::Dispose
        )
    }

    /// Whether it is answered on the PR at all (a push is not a command).
    pub fn answered(self) -> bool {
        self != Kind::Push
    }

    /// Whether carrying it out posts a reply (besides the `+1`).
    pub fn replies(self) -> bool {
        self == Kind::Status
    }
}

/// Weights of the mix, in percent.
const MIX: [(Kind, u32); 8] = [
    (Kind::Report, 26),
    (Kind::Waive, 12),
    (Kind::Veto, 6),
    (Kind::Dispose, 12),
    (Kind::Status, 8),
    (Kind::Gate, 8),
    (Kind::Baseline, 8),
    (Kind::Push, 20),
];

pub fn draw(rng: &mut impl Rng) -> Kind {
    let total: u32 = MIX.iter().map(|(_, w)| w).sum();
    let mut at = rng.gen_range(0..total);
    for (kind, weight) in MIX {
        if at < weight {
            return kind;
        }
        at -= weight;
    }
    Kind::Report
}

/// The findings of `valid.json` a report keeps: both, or one of the two, so that a later
/// waiver or disposition may name a finding the latest run no longer has.
pub fn findings(rng: &mut impl Rng) -> &'static [&'static str] {
    match rng.gen_range(0..3) {
        0 => &["A-01", "A-02"],
        1 => &["A-01"],
        _ => &["A-02"],
    }
}

/// A finding id of `valid.json`.
fn finding(rng: &mut impl Rng) -> &'static str {
    if rng.gen_bool(0.5) {
        "A-01"
    } else {
        "A-02"
    }
}

/// The comment text and author of a command other than a report.
pub fn command(kind: Kind, rng: &mut impl Rng) -> (String, &'static str) {
    match kind {
        Kind::Waive => (
            format!(
                "/audit waive {} --basis triage-threshold --reason \"Below the triage threshold for this change\"",
                finding(rng)
            ),
            "maint",
        ),
        Kind::Veto => (
            "/audit veto webhook-replay --reason \"Replayed deliveries must be fixed before merge\""
                .to_owned(),
            "maint",
        ),
        Kind::Dispose => {
            let how = ["fix", "follow-up", "reject", "file"][rng.gen_range(0..4)];
            (
                format!(
                    "/audit dispose {} {how} --note \"Handled in the follow-up change\"",
                    finding(rng)
                ),
                "maint",
            )
        }
        Kind::Status => ("/audit status".to_owned(), "alice"),
        Kind::Gate => ("/audit gate".to_owned(), "alice"),
        Kind::Baseline => ("/audit baseline".to_owned(), "alice"),
        Kind::Report | Kind::Push => unreachable!("built by the driver"),
    }
}
