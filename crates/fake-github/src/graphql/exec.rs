//! Executes a validated GraphQL operation as the GraphQL specification does: fields
//! collected by response key (aliases, inline fragments and fragment spreads whose type
//! condition the object meets), arguments from literals and variables, `__typename`, and
//! a null in a non-null position carried up to the nearest nullable field. Field values
//! come from `fake_graphql_fields`; what it does not serve is refused there.

use apollo_compiler::ast::{Type, Value as Literal};
use apollo_compiler::executable::{Field, Operation, Selection, SelectionSet};
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Node};
use serde_json::{json, Map, Value};

use super::fields;
use super::obj::{FieldError, Obj, Resolved};
use super::schema::SCHEMA;
use super::world::World;

/// A null that must reach the nearest nullable field; its error is already reported.
struct Propagate;

struct Executor<'a> {
    state: &'a mut dyn World,
    document: &'a Valid<ExecutableDocument>,
    variables: &'a Map<String, Value>,
    errors: Vec<Value>,
}

/// The response body (`data`, and `errors` when there are any) of `operation`.
pub fn execute(
    state: &mut dyn World,
    document: &Valid<ExecutableDocument>,
    operation: &Operation,
    variables: &Map<String, Value>,
) -> Value {
    let mut ex = Executor {
        state,
        document,
        variables,
        errors: Vec::new(),
    };
    if let Some(d) = operation.directives.first() {
        ex.unserved(format!("the directive @{} on an operation", d.name));
    }
    let root = if operation.is_mutation() {
        Obj::Mutation
    } else {
        Obj::Query
    };
    let data = ex
        .selection(&root, &[&operation.selection_set], &mut Vec::new())
        .map_or(Value::Null, Value::Object);
    let mut body = json!({"data": data});
    if !ex.errors.is_empty() {
        body["errors"] = Value::Array(ex.errors);
    }
    body
}

/// Whether an object of type `ty` meets the type condition `condition`.
fn applies(condition: &str, ty: &str) -> bool {
    condition == ty || SCHEMA.is_subtype(condition, ty)
}

impl<'a> Executor<'a> {
    fn unserved(&mut self, what: String) {
        self.state
            .problem(format!("the fake GitHub does not serve {what}"));
    }

    /// The fields of `sets` that apply to type `ty`, grouped by response key, in order.
    fn collect(
        &mut self,
        ty: &str,
        sets: &[&'a SelectionSet],
        out: &mut Vec<(String, Vec<&'a Node<Field>>)>,
    ) {
        let document = self.document;
        for selection in sets.iter().flat_map(|s| &s.selections) {
            if !self.included(selection.directives()) {
                continue;
            }
            match selection {
                Selection::Field(f) => {
                    let key = f.response_key().as_str();
                    match out.iter_mut().find(|(k, _)| k == key) {
                        Some((_, group)) => group.push(f),
                        None => out.push((key.to_owned(), vec![f])),
                    }
                }
                Selection::InlineFragment(i) => {
                    if i.type_condition.as_ref().is_none_or(|c| applies(c, ty)) {
                        self.collect(ty, &[&i.selection_set], out);
                    }
                }
                Selection::FragmentSpread(s) => {
                    if let Some(fragment) = document.fragments.get(&s.fragment_name) {
                        if applies(fragment.type_condition(), ty) {
                            self.collect(ty, &[&fragment.selection_set], out);
                        }
                    }
                }
            }
        }
    }

    fn selection(
        &mut self,
        obj: &Obj,
        sets: &[&'a SelectionSet],
        path: &mut Vec<Value>,
    ) -> Result<Map<String, Value>, Propagate> {
        let mut groups = Vec::new();
        self.collect(obj.type_name(), sets, &mut groups);
        let mut out = Map::new();
        for (key, group) in groups {
            path.push(json!(key));
            let value = self.field(obj, &group, path);
            path.pop();
            out.insert(key, value?);
        }
        Ok(out)
    }

    fn field(
        &mut self,
        obj: &Obj,
        group: &[&'a Node<Field>],
        path: &mut Vec<Value>,
    ) -> Result<Value, Propagate> {
        let field = group[0];
        if field.name == "__typename" {
            return Ok(json!(obj.type_name()));
        }
        let given: Vec<&str> = field.arguments.iter().map(|a| a.name.as_str()).collect();
        let args = self.arguments(field);
        let resolved = fields::served(obj.type_name(), &field.name, &given).and_then(|()| {
            if self.state.fails(obj.type_name(), &field.name) {
                let message = format!("Something went wrong while resolving {}", field.name);
                return Err(FieldError::github("INTERNAL", message, false));
            }
            fields::resolve(&mut *self.state, obj, &field.name, &args)
        });
        let completed = match resolved {
            Ok(value) => self.complete(field.ty(), group, value, path),
            Err(e) => {
                self.error(e, field, path);
                Err(Propagate)
            }
        };
        match completed {
            Err(Propagate) if !field.ty().is_non_null() => Ok(Value::Null),
            other => other,
        }
    }

    fn complete(
        &mut self,
        ty: &Type,
        group: &[&'a Node<Field>],
        value: Resolved,
        path: &mut Vec<Value>,
    ) -> Result<Value, Propagate> {
        match (value, ty) {
            (Resolved::Leaf(Value::Null), _) if ty.is_non_null() => {
                let message = format!(
                    "Cannot return null for non-nullable field {}",
                    group[0].name
                );
                self.error(FieldError::plain(message), group[0], path);
                Err(Propagate)
            }
            (Resolved::Leaf(v), _) => Ok(v),
            (Resolved::List(items), Type::List(item) | Type::NonNullList(item)) => {
                let mut out = Vec::new();
                for (i, value) in items.into_iter().enumerate() {
                    path.push(json!(i));
                    let done = self.complete(item, group, value, path);
                    path.pop();
                    match done {
                        Ok(v) => out.push(v),
                        Err(Propagate) if !item.is_non_null() => out.push(Value::Null),
                        Err(p) => return Err(p),
                    }
                }
                Ok(Value::Array(out))
            }
            (Resolved::Object(obj), _) => {
                let sets: Vec<&'a SelectionSet> = group.iter().map(|f| &f.selection_set).collect();
                self.selection(&obj, &sets, path).map(Value::Object)
            }
            (Resolved::List(_), _) => {
                self.error(
                    FieldError::plain("a list for a non-list field".into()),
                    group[0],
                    path,
                );
                Err(Propagate)
            }
        }
    }

    fn error(&mut self, e: FieldError, field: &Node<Field>, path: &[Value]) {
        if e.unserved {
            self.state.problem(e.message.clone());
        }
        let mut error = json!({"message": e.message, "path": path});
        if let Some(kind) = e.kind {
            error["type"] = json!(kind);
        }
        if let Some(at) = e
            .located
            .then(|| field.line_column_range(&self.document.sources))
            .flatten()
        {
            error["locations"] = json!([{"line": at.start.line, "column": at.start.column}]);
        }
        self.errors.push(error);
    }

    /// The field's arguments: those given, from literals and variables, and the defaults
    /// of the ones not given.
    fn arguments(&self, field: &Field) -> Map<String, Value> {
        let mut out = Map::new();
        for def in &field.definition.arguments {
            let given = field.specified_argument_by_name(&def.name);
            let value = given
                .and_then(|v| self.literal(v))
                .or_else(|| def.default_value.as_ref().and_then(|v| self.literal(v)));
            if let Some(value) = value {
                out.insert(def.name.to_string(), value);
            }
        }
        out
    }

    /// Whether `@include(if:)` and `@skip(if:)` keep a selection, as the specification
    /// says; any other directive is unserved.
    fn included(&mut self, directives: &apollo_compiler::executable::DirectiveList) -> bool {
        let mut keep = true;
        for d in directives {
            let given = d
                .specified_argument_by_name("if")
                .and_then(|v| self.literal(v));
            match (d.name.as_str(), given) {
                ("include", Some(Value::Bool(b))) => keep &= b,
                ("skip", Some(Value::Bool(b))) => keep &= !b,
                _ => self.unserved(format!("the directive @{}", d.name)),
            }
        }
        keep
    }

    /// A literal's JSON value; `None` for a variable the request did not give.
    fn literal(&self, v: &Literal) -> Option<Value> {
        Some(match v {
            Literal::Null => Value::Null,
            Literal::Variable(name) => return self.variables.get(name.as_str()).cloned(),
            Literal::Enum(name) => json!(name.as_str()),
            Literal::String(s) => json!(s),
            Literal::Boolean(b) => json!(b),
            Literal::Int(i) => i.try_to_i32().map_or(Value::Null, |i| json!(i)),
            Literal::Float(f) => f.try_to_f64().map_or(Value::Null, |f| json!(f)),
            Literal::List(items) => Value::Array(
                items
                    .iter()
                    .map(|i| self.literal(i).unwrap_or(Value::Null))
                    .collect(),
            ),
            Literal::Object(fields) => Value::Object(
                fields
                    .iter()
                    .filter_map(|(k, v)| Some((k.to_string(), self.literal(v)?)))
                    .collect(),
            ),
        })
    }
}
