//! The GraphQL fields the fake serves, exactly those of the documents the app sends
//! (`RecordsCommit`, `RecordsLanded`, `FirstReads`, `Views`, `PacketReads`), read from the
//! same state as the REST routes: git data in `commits` and `trees`, files, pull requests
//! and check runs in `reads` and `packet`, the check-run mutations in `checks`, the body's
//! update and the reaction in `writes`, review threads in `reviews` and `review_writes`.
//! Any other field or argument, valid in GitHub's schema or not, is refused as unserved.

use serde_json::{Map, Value};

use super::obj::{FieldError, Obj, Resolved};
use super::world::World;

/// Whether the fake serves `ty.field` with the arguments `given`.
pub fn served(ty: &str, field: &str, given: &[&str]) -> Result<(), FieldError> {
    let Some((_, _, allowed)) = super::commits::SERVED
        .iter()
        .chain(super::reads::SERVED)
        .chain(super::writes::SERVED)
        .chain(super::checks::SERVED)
        .chain(super::trees::SERVED)
        .chain(super::packet::SERVED)
        .chain(super::reviews::SERVED)
        .chain(super::review_writes::SERVED)
        .find(|(t, f, _)| *t == ty && *f == field)
    else {
        return Err(FieldError::unserved(&format!("{ty}.{field}")));
    };
    match given.iter().find(|a| !allowed.contains(a)) {
        Some(arg) => Err(FieldError::unserved(&format!("{ty}.{field}({arg}:)"))),
        None => Ok(()),
    }
}

/// The value of the served field `field` of `obj`.
pub fn resolve(
    state: &mut dyn World,
    obj: &Obj,
    field: &str,
    args: &Map<String, Value>,
) -> Result<Resolved, FieldError> {
    let resolvers = [
        super::commits::resolve,
        super::writes::resolve,
        super::checks::resolve,
        super::trees::resolve,
        super::packet::resolve,
        super::reviews::resolve,
        super::review_writes::resolve,
    ];
    for resolver in resolvers {
        if let Some(done) = resolver(state, obj, field, args) {
            return done;
        }
    }
    super::reads::resolve(state, obj, field, args)
}
