//! The "Waivers" section (docs/reference.md#the-pr-body): a row per waived
//! finding.

use crate::record::Record;

use crate::md::escape::inline;
use crate::md::markers::SectionKind;

const KEY_CHARS: usize = 100;
const REASON_CHARS: usize = 300;
const AUTHORITY_CHARS: usize = 60;

#[must_use]
pub(crate) fn render(record: Option<&Record>) -> String {
    let Some(record) = record else {
        return SectionKind::Waivers.wrap("No audit record yet, so no waivers.");
    };
    let waived = record.waived();
    if waived.is_empty() {
        return SectionKind::Waivers.wrap("No waivers.");
    }
    let mut out = String::new();
    out.push_str("| Finding | Severity | Basis | Reason | Authority | Round |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for w in waived {
        let found = record.finding(w.finding.run, &w.finding.id);
        let key = w
            .finding
            .key
            .as_ref()
            .map_or_else(|| "(no key)".to_owned(), |k| inline(k.as_str(), KEY_CHARS));
        let severity = found.map_or("unknown", |f| f.severity.as_str());
        out.push_str(&format!(
            "| {} {} | {} | {} | {} | {} | {} |\n",
            w.finding.id,
            key,
            severity,
            w.waiver.basis.as_str(),
            inline(&w.waiver.reason, REASON_CHARS),
            inline(&w.waiver.authority, AUTHORITY_CHARS),
            w.finding.run,
        ));
    }
    SectionKind::Waivers.wrap(&out)
}
