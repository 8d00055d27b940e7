//! Repository configuration (placeholder until the full `.github/auditloop.yml` model lands).

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Assurance {
    #[default]
    Standard,
    Hardened,
}
