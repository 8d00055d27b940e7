//! Runs a composite action's `run` steps locally, as a GitHub-hosted runner would: each
//! step's `env` evaluated (`${{ inputs.* }}`, `${{ github.token }}`,
//! `${{ github.action_path }}`, `${{ github.action_repository }}`, `${{ github.action_ref }}`,
//! `${{ runner.temp }}`, `${{ steps.ID.outputs.NAME }}`; anything else fails the test), its
//! script run with `bash --noprofile --norc -eo pipefail`, and `$GITHUB_ENV`,
//! `$GITHUB_PATH` and `$GITHUB_OUTPUT` honoured between steps. The YAML is read into JSON
//! values with serde-saphyr, the parser the app uses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use serde_json::Value as Yaml;

#[derive(Debug)]
pub struct Step {
    pub name: String,
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

pub struct Runner {
    /// The runner's environment: GitHub's default variables and what steps exported.
    pub env: BTreeMap<String, String>,
    pub token: String,
    pub action_path: PathBuf,
    /// `github.action_repository` and `github.action_ref`: how the workflow named the action.
    pub action_repository: String,
    pub action_ref: String,
    pub temp: PathBuf,
    pub workspace: PathBuf,
    /// `RUNNER_TOOL_CACHE`, kept between runs of one runner.
    pub tool_cache: PathBuf,
    /// What each step with an `id` wrote to `$GITHUB_OUTPUT`, in this run.
    outputs: BTreeMap<String, BTreeMap<String, String>>,
}

fn yaml_str(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        Yaml::Null => String::new(),
        other => panic!("not a scalar: {other:?}"),
    }
}

impl Runner {
    /// A runner for the action at `action_path` (a checkout of this repository), talking
    /// to `api_url` for `repository`, with the job's `GITHUB_TOKEN`.
    pub fn new(
        action_path: &Path,
        dir: &Path,
        api_url: &str,
        repository: &str,
        token: &str,
    ) -> Self {
        let temp = dir.join("runner-temp");
        let workspace = dir.join("workspace");
        let tool_cache = dir.join("tool-cache");
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&tool_cache).unwrap();
        let mut env = BTreeMap::new();
        for (k, v) in [
            ("CI", "true"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", repository),
            ("GITHUB_API_URL", api_url),
            ("GITHUB_EVENT_NAME", "repository_dispatch"),
            ("GITHUB_RUN_ID", "7001"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
        ] {
            env.insert(k.to_owned(), v.to_owned());
        }
        env.insert("RUNNER_TEMP".into(), temp.display().to_string());
        env.insert("GITHUB_WORKSPACE".into(), workspace.display().to_string());
        env.insert("RUNNER_TOOL_CACHE".into(), tool_cache.display().to_string());
        env.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
        env.insert("HOME".into(), dir.display().to_string());
        Self {
            env,
            token: token.to_owned(),
            action_path: action_path.to_owned(),
            action_repository: "auditloop/auditloop".to_owned(),
            action_ref: "v0.1.0".to_owned(),
            temp,
            workspace,
            tool_cache,
            outputs: BTreeMap::new(),
        }
    }

    fn eval(&self, text: &str, inputs: &BTreeMap<String, String>) -> String {
        let expr = Regex::new(r"\$\{\{\s*([^}]*?)\s*\}\}").unwrap();
        expr.replace_all(text, |c: &regex::Captures| {
            let e = &c[1];
            if let Some(name) = e.strip_prefix("inputs.") {
                return inputs
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| panic!("the action has no input {name}"));
            }
            if let Some(rest) = e.strip_prefix("steps.") {
                let (id, name) = rest.split_once(".outputs.").expect("steps.ID.outputs.NAME");
                return self
                    .outputs
                    .get(id)
                    .and_then(|o| o.get(name))
                    .cloned()
                    .unwrap_or_default();
            }
            match e {
                "github.token" => self.token.clone(),
                "github.action_path" => self.action_path.display().to_string(),
                "github.action_repository" => self.action_repository.clone(),
                "github.action_ref" => self.action_ref.clone(),
                "runner.temp" => self.temp.display().to_string(),
                other => panic!("expression not modelled by the local runner: {other}"),
            }
        })
        .into_owned()
    }

    /// Runs every step of `action.yml` with inputs `with` (defaults from the file); stops
    /// at the first step that fails, as a runner does.
    pub fn run(&mut self, with: &[(&str, &str)]) -> Vec<Step> {
        self.run_steps(with, usize::MAX)
    }

    /// Runs the first `count` steps of `action.yml`, as [`Runner::run`] runs them all.
    pub fn run_steps(&mut self, with: &[(&str, &str)], count: usize) -> Vec<Step> {
        self.outputs.clear();
        let text = std::fs::read_to_string(self.action_path.join("action.yml")).unwrap();
        let action: Yaml = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(yaml_str(&action["runs"]["using"]), "composite");
        let given: BTreeMap<&str, &str> = with.iter().copied().collect();
        let mut inputs = BTreeMap::new();
        let declared = action["inputs"].as_object().expect("inputs");
        for name in given.keys() {
            assert!(declared.contains_key(*name), "input {name} is not declared");
        }
        for (name, spec) in declared {
            let name = name.clone();
            let value = if let Some(v) = given.get(name.as_str()) {
                v.to_string()
            } else {
                assert!(
                    spec["required"].as_bool() != Some(true),
                    "required input {name} not given"
                );
                self.eval(&yaml_str(&spec["default"]), &BTreeMap::new())
            };
            inputs.insert(name, value);
        }
        let files = [
            "GITHUB_ENV",
            "GITHUB_PATH",
            "GITHUB_OUTPUT",
            "GITHUB_STEP_SUMMARY",
        ];
        let mut out = Vec::new();
        for (n, step) in action["runs"]["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .take(count)
            .enumerate()
        {
            let name = yaml_str(&step["name"]);
            assert!(
                step.get("uses").is_none(),
                "{name}: uses-steps are not run locally"
            );
            assert_eq!(yaml_str(&step["shell"]), "bash", "{name}");
            let script = self.temp.join(format!("step-{n}.sh"));
            std::fs::write(&script, yaml_str(&step["run"])).unwrap();
            let mut env = self.env.clone();
            for f in files {
                let path = self.temp.join(format!("{f}-{n}"));
                std::fs::write(&path, "").unwrap();
                env.insert(f.to_owned(), path.display().to_string());
            }
            if let Some(map) = step["env"].as_object() {
                for (k, v) in map {
                    env.insert(k.clone(), self.eval(&yaml_str(v), &inputs));
                }
            }
            let o = Command::new("bash")
                .args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(&script)
                .current_dir(&self.workspace)
                .env_clear()
                .envs(&env)
                .output()
                .unwrap();
            let exported =
                std::fs::read_to_string(self.temp.join(format!("GITHUB_ENV-{n}"))).unwrap();
            for line in exported.lines() {
                if let Some((k, v)) = line.split_once('=') {
                    self.env.insert(k.to_owned(), v.to_owned());
                }
            }
            if let Some(id) = step.get("id").map(yaml_str) {
                let written =
                    std::fs::read_to_string(self.temp.join(format!("GITHUB_OUTPUT-{n}"))).unwrap();
                let outputs = written
                    .lines()
                    .filter_map(|l| l.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                self.outputs.insert(id, outputs);
            }
            let paths =
                std::fs::read_to_string(self.temp.join(format!("GITHUB_PATH-{n}"))).unwrap();
            for p in paths.lines().filter(|p| !p.is_empty()) {
                let old = self.env["PATH"].clone();
                self.env.insert("PATH".into(), format!("{p}:{old}"));
            }
            let status = o.status.code().unwrap_or(-1);
            out.push(Step {
                name,
                status,
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            });
            if status != 0 {
                break;
            }
        }
        out
    }
}

/// `with:` of the step in `workflow` that uses this repository's action.
pub fn workflow_with(workflow: &str) -> BTreeMap<String, String> {
    let wf: Yaml = serde_saphyr::from_str(workflow).unwrap();
    let jobs = wf["jobs"].as_object().unwrap();
    for (_, job) in jobs {
        for step in job["steps"].as_array().unwrap() {
            let uses = step.get("uses").map(yaml_str).unwrap_or_default();
            if uses.contains("/auditloop@") {
                return step["with"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), yaml_str(v)))
                    .collect();
            }
        }
    }
    panic!("no step uses the auditloop action")
}

/// A workflow's `with:` value with `${{ github.event.client_payload.* }}` and
/// `${{ runner.temp }}` filled in from a dispatch's payload, as GitHub does.
pub fn eval_workflow(value: &str, payload: &serde_json::Value, temp: &Path) -> String {
    let expr = Regex::new(r"\$\{\{\s*([^}]*?)\s*\}\}").unwrap();
    expr.replace_all(value, |c: &regex::Captures| {
        let e = &c[1];
        if let Some(key) = e.strip_prefix("github.event.client_payload.") {
            return match &payload[key] {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => panic!("the payload has no {key}"),
                other => other.to_string(),
            };
        }
        match e {
            "runner.temp" => temp.display().to_string(),
            other => panic!("expression not modelled: {other}"),
        }
    })
    .into_owned()
}
